import { describe, expect, it } from 'vitest';
import { resolveNames, type NameDirectory } from '../../../lib/dashboards/resolve';
import { formatFileIssue, validateFiles } from '../../../lib/dashboards/validate';

const S1 = '64b000000000000000000001';
const S2 = '64b000000000000000000002';

const FILE = `name: R
tiles:
  - name: a
    x: 0
    y: 0
    w: 6
    h: 4
    series:
      - { type: time, source: Logs, aggFn: count, whereLanguage: lucene }
    alerts:
      - name: hi
        threshold: 1
        thresholdType: between
        thresholdMax: 5
        interval: 5m
        channel: { type: webhook, webhook: ops }
  - name: b
    x: 6
    y: 0
    w: 6
    h: 4
    config: { displayType: number, source: Metrics, select: [{ aggFn: count }] }
`;

function directory(
  sources: { id: string; name: string }[],
  webhooks: { id: string; name: string }[],
) {
  const calls: string[] = [];
  const dir: NameDirectory = {
    listSources: () => (calls.push('sources'), Promise.resolve(sources)),
    listWebhooks: () => (calls.push('webhooks'), Promise.resolve(webhooks)),
  };
  return { dir, calls };
}

async function load(text: string) {
  const files = [{ file: 'team/r.yaml', text }];
  const { dashboards, issues } = await validateFiles(files);
  expect(issues).toEqual([]);
  return { dashboards, files };
}

describe('resolveNames', () => {
  it('turns source and webhook names into ids, reading each list once', async () => {
    const { dashboards, files } = await load(FILE);
    const { dir, calls } = directory(
      [
        { id: S1, name: 'Logs' },
        { id: S2, name: 'Metrics' },
      ],
      [{ id: 'w1', name: 'ops' }],
    );
    const out = await resolveNames(dashboards, dir, files);
    expect(out.issues).toEqual([]);
    expect(calls.sort()).toEqual(['sources', 'webhooks']);
    const [a, b] = out.dashboards[0].tiles;
    expect(a.series[0]).toMatchObject({ sourceId: S1 });
    expect(a.series[0]).not.toHaveProperty('source');
    expect(a.alerts[0].channel).toEqual({ type: 'webhook', webhookId: 'w1' });
    expect(b.config).toMatchObject({ sourceId: S2 });
    expect(b.config).not.toHaveProperty('source');
    // The input is untouched (the plan of a second service resolves again).
    expect(dashboards[0].tiles[0].series[0].source).toBe('Logs');
  });

  it('names file, line and the names that exist for an unknown or ambiguous name, and an unknown webhookId', async () => {
    const { dashboards, files } = await load(
      FILE.replace('webhook: ops', 'webhookId: w-gone').replace('source: Metrics', 'source: Dup'),
    );
    const { dir } = directory(
      [
        { id: S1, name: 'Logz' },
        { id: S2, name: 'Dup' },
        { id: '64b000000000000000000003', name: 'Dup' },
      ],
      [{ id: 'w1', name: 'ops' }],
    );
    const out = await resolveNames(dashboards, dir, files);
    expect(out.issues.map(formatFileIssue)).toEqual([
      'team/r.yaml:9:31 tiles[0].series[0].source: unknown source "Logs"; they are "Logz", "Dup", "Dup"',
      'team/r.yaml:16:46 tiles[0].alerts[0].channel.webhookId: webhook id "w-gone" not found; they are "ops" (w1)',
      `team/r.yaml:22:44 tiles[1].config.source: source name "Dup" is ambiguous (ids ${S2}, 64b000000000000000000003); give the id instead`,
    ]);
  });

  it('makes no request when no file names anything', async () => {
    const { dashboards, files } = await load('name: plain\n');
    const { dir, calls } = directory([], []);
    expect((await resolveNames(dashboards, dir, files)).issues).toEqual([]);
    expect(calls).toEqual([]);
  });
});
