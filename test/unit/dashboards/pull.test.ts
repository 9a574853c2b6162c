/** pullFiles: where a pulled dashboard is written, and what it says when its key is lost. */
import { describe, expect, it } from 'vitest';
import { formatMarker } from '../../../lib/alerts/marker';
import { identityTag, isKeyTag, markerTags } from '../../../lib/dashboards/ownership';
import { computePlan, writeBody } from '../../../lib/dashboards/plan';
import type { DesiredDashboard } from '../../../lib/dashboards/types';
import { declaredIn, pullFiles } from '../../../lib/dashboards/pull';
import type { Alert, Dashboard } from '../../../lib/schemas';

const tile = { id: 't1', name: 'Errors', x: 0, y: 0, w: 6, h: 4 };
const dash = (key: string, name = 'Ops'): Dashboard => ({
  id: 'd1',
  name,
  tags: markerTags(key),
  tiles: [tile],
});
const alertFor = (key: string, tileKey: string): Alert => ({
  id: 'a1',
  name: 'Burst',
  dashboardId: 'd1',
  tileId: 't1',
  threshold: 1,
  thresholdType: 'above',
  interval: '5m',
  channel: { type: 'webhook', webhookId: 'w1' },
  message: formatMarker({
    owner: { kind: 'dashboard', dashboardKey: key, tileName: tileKey, alertName: 'Burst' },
    version: '2026-11-01T00:00:00.000Z',
  }),
});

describe('pullFiles', () => {
  it('never writes outside the folder: a key with a dot segment is written by id', () => {
    const { files } = pullFiles([dash('../../etc/x')], [alertFor('../../etc/x', 'errors')], {
      owner: 'default',
    });
    expect(files.map((f) => [f.file, f.key])).toEqual([['dashboard-d1.yaml', '../../etc/x']]);
    expect(files[0].text).toContain('key: ../../etc/x');
  });

  it('takes the key its key tag carries, trusted only when it hashes to the identity tag', () => {
    expect(pullFiles([dash('data/ingest')], [], { owner: 'default' }).files[0].key).toBe(
      'data/ingest',
    );
    const forged = {
      ...dash('data/ingest'),
      tags: [...markerTags('x').slice(0, 1), identityTag('y'), 'cloudops:k=x'],
    };
    expect(pullFiles([forged], [], { owner: 'default' }).files[0].key).toBe('ops');
  });

  it('warns when the key is not recoverable: too long for its tag, and no alert or file has it', () => {
    const long = 'team/a-key-too-long-for-its-tag';
    const { files, warnings } = pullFiles([dash(long)], [alertFor('forged', 'errors')], {
      owner: 'default',
    });
    expect(files[0].key).toBe('ops');
    expect(files[0].text).not.toContain('key: errors');
    expect(warnings).toEqual([
      'the key of "Ops" (d1) is not on the service (only its hash): written as "ops", which plan would create anew; set `key:` to its key, or pull into the folder that declares it',
    ]);
  });

  it('says which --target matched no dashboard', () => {
    const { files, warnings } = pullFiles([dash('data/ingest')], [], {
      owner: 'default',
      keys: ['data/ingest', 'data/gone'],
    });
    expect(files.map((f) => f.key)).toEqual(['data/ingest']);
    expect(warnings).toEqual([
      '--target "data/gone": no dashboard of owner "default" has this key',
    ]);
  });

  it('takes the key of a file of the folder, and keeps that file and its header', () => {
    const declared = declaredIn(
      'team/ops.yml',
      '# yaml-language-server: $schema=../s.json\n\nname: Ops\n',
    );
    expect(declared).toEqual({
      file: 'team/ops.yml',
      key: 'team/ops',
      name: 'Ops',
      header: '# yaml-language-server: $schema=../s.json\n\n',
    });
    const { files, warnings } = pullFiles([dash('team/ops')], [], { owner: 'default' }, {}, [
      declared!,
    ]);
    expect(warnings).toEqual([]);
    expect(files.map((f) => f.file)).toEqual(['team/ops.yml']);
    expect(
      files[0].text.startsWith('# yaml-language-server: $schema=../s.json\n\nname: Ops\n'),
    ).toBe(true);
  });
});

describe('the key tag pull reads', () => {
  const desired = (key: string) =>
    ({ key, sourceFile: `${key}.yaml`, name: 'Ops', tags: [], tiles: [] }) as DesiredDashboard;

  it('is written with every write, and its absence alone is no change (older dashboards)', () => {
    expect(writeBody(desired('data/ingest')).tags).toContain('cloudops:k=data/ingest');
    const older = {
      ...dash('data/ingest'),
      tiles: [],
      tags: ['cloudops', identityTag('data/ingest')],
    };
    const plan = computePlan([desired('data/ingest')], [older]);
    expect(plan.changes[0].action).toBe('unchanged');
    expect(plan.pending).toBe(false);
  });

  it('fits the service limit: a key too long for one 32-character tag is left to its hash', () => {
    expect(markerTags('a'.repeat(21)).at(-1)).toBe(`cloudops:k=${'a'.repeat(21)}`);
    expect(markerTags('a'.repeat(22)).some(isKeyTag)).toBe(false);
  });
});
