/**
 * What `pipes list` shows as LAST PROGRESS: when the sent counter was last seen rising. A pipe
 * that is not Running has its watchdog clock restarted at every run, so that clock must not be
 * shown as progress (it would read as "progress at the last run" for a Stopped pipe).
 */
import { describe, expect, it } from 'vitest';
import { formatServices } from '../../../cli/commands/pipes-view';
import { decide } from '../../../lib/pipes/decide';
import { decideProgress } from '../../../lib/pipes/progress';
import type { ProgressReading } from '../../../lib/pipes/progress-record';
import type { PipeRecord } from '../../../lib/pipes/types';
import { parseWatchdogConfig } from '../../../lib/pipes/watchdog-config';
import { viewService } from '../../../lib/pipes/view';
import type { Pipe } from '../../../lib/schemas';

const MIN = 60_000;
const T0 = Date.parse('2026-08-03T09:00:00Z');
const ids = { organizationId: 'org', serviceId: 'svc' };
const config = parseWatchdogConfig({ organizationId: 'org', serviceIds: ['svc'] });

/** The watchdog's record after runs every 5 minutes, each (state, sent) as the metrics said (as service-plan.ts steps it). */
function watched(runs: [state: string, sent: number][]): PipeRecord {
  let record: PipeRecord | undefined;
  runs.forEach(([state, sent], i) => {
    const at = T0 + i * 5 * MIN;
    const reading: ProgressReading = { at, counter: 'events', sent, fetched: sent, errors: 0 };
    const observed = { ...ids, pipeId: 'p1', pipeName: 'orders', state, reading };
    const next = decide(record, observed, at, config.policy).next;
    const progress = decideProgress(next, reading, config.progress, config.policy).progress;
    record = { ...next, progress };
  });
  return record!;
}

/** `pipes list` of the pipe, read from the listing (no metrics) after the last run. */
function listed(record: PipeRecord, state: string) {
  const pipe = { id: 'p1', serviceId: 'svc', name: 'orders', state } as Pipe;
  const at = record.lastSeenAt + MIN;
  const service = viewService(ids, { via: 'listing', pipes: [pipe] }, [record], at);
  return { view: service.pipes[0], text: formatServices([service]) };
}

/** Sent rises at 09:05, then the pipe is `after` for two runs with sent flat. */
const roseThen = (after: string) =>
  watched([
    ['Running', 100],
    ['Running', 150],
    [after, 150],
    [after, 150],
  ]);

describe('pipes list: LAST PROGRESS', () => {
  it('a Stopped pipe shows when sent last rose, not the time of the last watchdog run', () => {
    const { view, text } = listed(roseThen('Stopped'), 'Stopped');
    expect(view.lastProgressAt).toBe('2026-08-03T09:05:00.000Z');
    expect(text).toMatch(/orders +Stopped +\S+ \S+ +2026-08-03 09:05Z/);
  });

  it('a Failed pipe whose kept readings never rose shows no last progress', () => {
    const record = watched([
      ['Failed', 150],
      ['Failed', 150],
      ['Failed', 150],
    ]);
    const { view, text } = listed(record, 'Failed');
    expect(view.lastProgressAt).toBeUndefined();
    expect(text).toMatch(/orders +Failed +\S+ \S+ +- +/);
  });

  it('a Running pipe flat since its last rise shows that rise', () => {
    expect(listed(roseThen('Running'), 'Running').view.lastProgressAt).toBe(
      '2026-08-03T09:05:00.000Z',
    );
  });
});
