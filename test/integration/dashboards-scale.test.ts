/**
 * The sync-dashboards function at scale, small N: the manifest (read only what changed, never
 * miss a change), and runs that stop at their deadline and continue. Real parts: the sandbox
 * over HTTP, S3 and EventBridge as a loopback server (bench/aws-stubs.ts: ListObjectsV2 pages
 * with ETags, GetObject, PutObject), provision-alerts' version table in dynalite. The big-N
 * figures are in bench/figures/sync-scale.ts.
 */
import { describe, expect, it } from 'vitest';
import { s3PutEvent, scheduledEvent } from '../../bench/events';
import { fakeClock } from '../../bench/fake-clock';
import { RateLimiterRegistry } from '../../lib/api/rate-limiter';
import type { SyncFunctionSummary } from '../../lib/dashboards/function-run';
import type { Sandbox } from '../../sandbox/index';
import {
  apiRequests as api,
  BUCKET,
  continuations,
  forget,
  MANIFEST,
  PREFIX,
  syncWorld,
  type SyncWorld as World,
} from '../support/sync-world';

const schedule = scheduledEvent();
const s3Put = (key: string) => s3PutEvent(BUCKET, key);
const world = (options: Parameters<typeof syncWorld>[0] = {}) =>
  syncWorld({ s3PageSize: 5, ...options });

/** A ~300-byte dashboard file of two markdown tiles (no source, no alert). */
const plain = (n: number, h = 4) =>
  `name: Service ${n}\ntags: [scale]\ntiles:\n` +
  `  - { name: notes, x: 0, y: 0, w: 12, h: ${h}, markdown: "service ${n}" }\n` +
  `  - { name: links, x: 12, y: 0, w: 12, h: 4, markdown: "runbook ${n}" }\n`;

/** A dashboard file with one chart and one alert on it. */
const withAlert = (sb: Sandbox, n: number) =>
  JSON.stringify({
    name: `Alerting ${n}`,
    tiles: [
      {
        name: 'Errors',
        x: 0,
        y: 0,
        w: 12,
        h: 4,
        series: [
          {
            type: 'time',
            sourceId: sb.info.sourceId,
            aggFn: 'count',
            where: `service:s${n}`,
            whereLanguage: 'lucene',
            groupBy: ['service'],
          },
        ],
        alerts: [
          {
            name: `errors ${n}`,
            threshold: 10,
            thresholdType: 'above',
            interval: '5m',
            channel: { type: 'webhook', webhookId: sb.info.webhookId },
          },
        ],
      },
    ],
  });

const put = (w: World, n: number, text: string) =>
  w.files.set(`${PREFIX}d${String(n).padStart(2, '0')}.yaml`, text);
const requests = (w: World) =>
  api(w).map(
    (e) =>
      `${e.method} ${e.path
        .split('/')
        .slice(-1)[0]
        .replace(/^[0-9a-f]{24}$/, '{id}')}`,
  );
/** S3 calls since the last forget(), dashboard files by name, the manifest as `manifest`. */
const s3Calls = (w: World) =>
  w.stubs.calls
    .filter((c) => c.startsWith('S3 '))
    .map((c) => c.replace(MANIFEST, 'manifest').replace(PREFIX, ''));
/** Our dashboards on the service, by identity tag: a duplicate shows as a count above 1. */
const ownedCounts = (w: World) => {
  const counts = new Map<string, number>();
  for (const d of w.sb.store.state.dashboards) {
    const tag = d.tags.find((t) => /^cloudops:[0-9a-f]{20}$/.test(t));
    if (tag) counts.set(tag, (counts.get(tag) ?? 0) + 1);
  }
  return counts;
};

describe('sync-dashboards with a manifest: read only what changed', () => {
  it('a no-op run lists the files and the dashboards once each and reads no dashboard file', async () => {
    const w = await world();
    for (let n = 0; n < 12; n++) put(w, n, plain(n));
    const first = await w.handler()(s3Put(`${PREFIX}d00.yaml`));
    expect(first).toMatchObject({
      counts: { create: 12 },
      files: { listed: 12, read: 12, planned: 12, inSync: 0 },
    });
    // No manifest yet (404): it is written once the run saw what is in sync.
    expect(s3Calls(w).filter((c) => !c.startsWith('S3 GetObject d'))).toEqual([
      'S3 GetObject manifest',
      'S3 ListObjectsV2',
      'S3 ListObjectsV2',
      'S3 ListObjectsV2',
      'S3 PutObject manifest',
    ]);

    forget(w);
    const noop = await w.handler()(schedule);
    expect(noop).toMatchObject({
      mode: 'apply',
      pending: false,
      counts: { unchanged: 12 },
      files: { listed: 12, read: 0, inSync: 12 },
      eventsSent: 0,
    });
    expect(requests(w)).toEqual(['GET dashboards']);
    // Three pages of five keys are one listing; nothing learnt, so nothing written.
    expect(s3Calls(w)).toEqual([
      'S3 GetObject manifest',
      'S3 ListObjectsV2',
      'S3 ListObjectsV2',
      'S3 ListObjectsV2',
    ]);
  });

  it('a changed file is read and applied alone; a hand edit on the service is found by the list and repaired', async () => {
    const w = await world();
    for (let n = 0; n < 12; n++) put(w, n, plain(n));
    await w.handler()(s3Put(`${PREFIX}d00.yaml`));

    put(w, 3, plain(3, 6));
    forget(w);
    const changed = await w.handler()(s3Put(`${PREFIX}d03.yaml`));
    expect(changed).toMatchObject({ counts: { update: 1, unchanged: 11 }, files: { read: 1 } });
    expect(requests(w)).toEqual(['GET dashboards', 'PUT {id}']);
    expect(s3Calls(w).filter((c) => c.startsWith('S3 GetObject'))).toEqual([
      'S3 GetObject manifest',
      'S3 GetObject d03.yaml',
    ]);

    // Drift made by hand on an unchanged file's dashboard: the one list shows it.
    const edited = w.sb.store.state.dashboards.find((d) => d.name === 'Service 7')!;
    edited.tiles[0].w = 5;
    w.sb.store.changed();
    forget(w);
    const repaired = await w.handler()(schedule);
    expect(repaired).toMatchObject({ counts: { update: 1, unchanged: 11 }, files: { read: 1 } });
    expect(requests(w)).toEqual(['GET dashboards', 'PUT {id}']);
    expect(s3Calls(w)).toContain('S3 GetObject d07.yaml');
    expect(w.sb.store.state.dashboards.find((d) => d.id === edited.id)!.tiles[0].w).toBe(12);

    forget(w);
    await w.handler()(schedule);
    expect(requests(w)).toEqual(['GET dashboards']);
    expect(s3Calls(w).filter((c) => c.startsWith('S3 GetObject d'))).toEqual([]);
  });

  it('a file removed from S3: its dashboard is pruned although no file is read', async () => {
    const w = await world();
    for (let n = 0; n < 6; n++) put(w, n, plain(n));
    await w.handler()(s3Put(`${PREFIX}d00.yaml`));
    w.files.delete(`${PREFIX}d04.yaml`);
    forget(w);
    const pruned = await w.handler()(schedule);
    expect(pruned).toMatchObject({ counts: { delete: 1, unchanged: 5 }, files: { read: 0 } });
    // The alert list names the alerts a delete takes with it (as without a manifest).
    expect(requests(w)).toEqual(['GET dashboards', 'GET alerts', 'DELETE {id}']);
    expect(w.sb.store.state.dashboards.some((d) => d.name === 'Service 4')).toBe(false);
  });

  it('a manifest write that is lost costs the next run reads, never a write or a missed change', async () => {
    const w = await world();
    for (let n = 0; n < 6; n++) put(w, n, plain(n));
    // The apply happens, the manifest is lost (a crash right after the writes): every attempt
    // of the SDK's retry fails.
    w.stubs.failPuts(3);
    const first = await w.handler()(s3Put(`${PREFIX}d00.yaml`));
    expect(first).toMatchObject({ counts: { create: 6 } });

    forget(w);
    const again = await w.handler()(schedule);
    // Every file is read again and found in sync against the list: nothing written twice.
    expect(again).toMatchObject({
      counts: { unchanged: 6 },
      files: { read: 6, planned: 0, inSync: 6 },
    });
    // Without a manifest, prune cannot know no webhook or saved search of this owner is left:
    // it lists them once; the manifest then says none is.
    expect(requests(w)).toEqual(['GET dashboards', 'GET webhooks', 'GET saved-searches']);
    expect(s3Calls(w)).toContain('S3 PutObject manifest');
    expect([...ownedCounts(w).values()]).toEqual(Array(6).fill(1));

    forget(w);
    await w.handler()(schedule);
    expect(s3Calls(w).filter((c) => c.startsWith('S3 GetObject d'))).toEqual([]);
    expect(requests(w)).toEqual(['GET dashboards']);
  });

  it('a manifest made for another owner or other variables is not trusted', async () => {
    const w = await world();
    for (let n = 0; n < 4; n++) put(w, n, plain(n));
    await w.handler({ CLOUDOPS_VAR_TEAM: 'a' })(s3Put(`${PREFIX}d00.yaml`));
    forget(w);
    const other = await w.handler({ CLOUDOPS_VAR_TEAM: 'b' })(schedule);
    expect(other).toMatchObject({ files: { read: 4 } });
  });

  it('a file that declares alerts is vouched for only through the version ledger', async () => {
    const w = await world();
    for (let n = 0; n < 3; n++) put(w, n, withAlert(w.sb, n));
    await w.handler()(s3Put(`${PREFIX}d00.yaml`));
    forget(w);
    const withLedger = await w.handler()(schedule);
    expect(withLedger).toMatchObject({ files: { read: 0, inSync: 3 } });
    expect(requests(w)).toEqual(['GET dashboards']);

    // Without the ledger nothing vouches for the alerts: those files are read and planned.
    forget(w);
    const without = await w.handler({ CLOUDOPS_ALERTS_VERSION_TABLE: undefined })(schedule);
    expect(without).toMatchObject({ files: { read: 3, planned: 3, inSync: 0 } });
    expect(requests(w)).toEqual(['GET dashboards', 'GET alerts']);
  });
});

describe('sync-dashboards at its deadline: stop between two writes, say so, continue', () => {
  it('a first apply over three runs: each reports its progress, the chain ends, nothing is made twice', async () => {
    const fake = fakeClock();
    // 4 requests per 10 s and 30 s of work per run: about 12 requests a run.
    const w = await world({ fake, limit: 4 });
    const N = 15;
    for (let n = 0; n < N; n++) put(w, n, withAlert(w.sb, n));
    const run = w.handler(
      {},
      {
        clock: fake.clock,
        limiters: new RateLimiterRegistry(fake.clock),
        deadline: () => ({ signal: fake.timeout(30_000) }),
      },
    );
    const summaries: SyncFunctionSummary[] = [await run(s3Put(`${PREFIX}d00.yaml`))];
    for (let i = 0; i < 6; i++) {
      const next = continuations(w)[i];
      if (!next) break;
      fake.advance(1_000); // EventBridge delivers the continuation
      summaries.push(await run(next));
    }
    const stops = summaries.map((s) => s.stopped);
    expect(stops.at(-1)).toBeUndefined(); // the last run finished
    expect(summaries.length).toBeGreaterThan(2);
    for (const [i, s] of stops.slice(0, -1).entries()) {
      expect(s).toMatchObject({ phase: 'applying', round: i + 1, continued: true });
      expect(s!.applied).toBeGreaterThan(0);
    }
    const pending = stops.slice(0, -1).map((s) => s!.pending);
    expect(pending).toEqual([...pending].sort((a, b) => b - a)); // shrinking
    expect(summaries.slice(1).every((s) => s.trigger === 'continuation')).toBe(true);
    // Every dashboard and every alert exactly once, and no request answered 429.
    expect([...ownedCounts(w).values()]).toEqual(Array(N).fill(1));
    const alerts = w.sb.store.state.alerts.filter((a) => a.name?.startsWith('errors '));
    expect(alerts.map((a) => a.name).sort()).toEqual(
      Array.from({ length: N }, (_, n) => `errors ${n}`).sort(),
    );
    expect(api(w).filter((e) => e.status === 429)).toEqual([]);

    // And then a no-op: one request.
    fake.advance(3_600_000);
    forget(w);
    expect(await run(schedule)).toMatchObject({ pending: false, files: { read: 0 } });
    expect(requests(w)).toEqual(['GET dashboards']);
  });

  it('out of time before the first write: a summary, not a failed invocation, and no continuation', async () => {
    const w = await world();
    for (let n = 0; n < 4; n++) put(w, n, plain(n));
    const late = new AbortController();
    late.abort(new Error('deadline'));
    const summary = await w.handler(
      {},
      { deadline: () => ({ signal: late.signal }) },
    )(s3Put(`${PREFIX}d00.yaml`));
    expect(summary).toMatchObject({
      mode: 'apply',
      stopped: { phase: 'reading', applied: 0, continued: false },
    });
    expect(api(w).filter((e) => e.method !== 'GET')).toEqual([]);
    expect(continuations(w)).toEqual([]);
  });
});
