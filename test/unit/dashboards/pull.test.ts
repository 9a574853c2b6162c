/** pullFiles: where a pulled dashboard is written, and what it says when its key is lost. */
import { describe, expect, it } from 'vitest';
import { formatMarker } from '../../../lib/alerts/marker';
import { markerTags } from '../../../lib/dashboards/ownership';
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

  it('trusts a key only when it hashes to the identity tag', () => {
    const { files, warnings } = pullFiles([dash('real/key')], [alertFor('forged', 'errors')], {
      owner: 'default',
    });
    expect(files[0].key).toBe('ops');
    expect(files[0].text).not.toContain('key: errors');
    expect(warnings).toEqual([
      'the key of "Ops" (d1) is not on the service (only its hash): written as "ops", which plan would create anew; set `key:` to its key, or pull into the folder that declares it',
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
