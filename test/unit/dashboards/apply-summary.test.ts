/**
 * The apply's last line when not everything was applied: it says so ("incomplete"), counts what
 * failed or was left by kind, and an interrupted run names what was and was not applied of
 * every kind, not only the dashboards.
 */
import { describe, expect, it } from 'vitest';
import type { ApplyResult } from '../../../lib/dashboards/apply';
import { renderApply } from '../../../lib/dashboards/render';

const dashboard = (name: string, status: ApplyResult['results'][number]['status']) => ({
  action: 'create' as const,
  status,
  name,
  tiles: [],
  alerts: [],
});

describe('the apply summary of a run that did not finish', () => {
  it('an interrupted run: "incomplete", the kinds left not applied, each named', () => {
    const result: ApplyResult = {
      ok: false,
      interrupted: true,
      objects: [
        { kind: 'webhook', action: 'create', status: 'created', name: 'Pager', id: 'w1' },
        { kind: 'savedSearch', action: 'create', status: 'not applied', name: 'Errors' },
      ],
      results: [dashboard('Board', 'not applied')],
    };
    const lines = renderApply(result).split('\n');
    expect(lines.slice(-2)).toEqual([
      'Apply incomplete: 1 webhook created, 0 updated, 0 deleted, 0 unchanged, ' +
        '1 dashboard not applied, 1 saved search not applied.',
      'Interrupted. Applied: webhook "Pager". Not applied: saved search "Errors", dashboard "Board".',
    ]);
  });

  it('failed alerts and a failed webhook are counted as failed, by kind', () => {
    const result: ApplyResult = {
      ok: false,
      interrupted: false,
      objects: [
        {
          kind: 'savedSearch',
          action: 'update',
          status: 'updated',
          name: 'Errors',
          alertResults: [
            { action: 'create', name: 'a', tile: 'Errors', status: 'done' },
            { action: 'update', name: 'b', tile: 'Errors', status: 'failed', message: 'no' },
          ],
        },
        { kind: 'webhook', action: 'update', status: 'failed', name: 'Pager', message: 'no' },
      ],
      results: [dashboard('Board', 'created')],
    };
    expect(renderApply(result).split('\n').at(-1)).toBe(
      'Apply incomplete: 1 dashboard created, 1 alert created, 1 saved search updated, ' +
        '0 deleted, 0 unchanged, 1 webhook failed, 1 alert failed.',
    );
  });
});
