/**
 * The deployed sync applies webhook and saved-search files with the dashboards: the example
 * folder (its webhook's URL and header as Secrets Manager references) from the S3 stand-in
 * (bench/aws-stubs.ts), the sandbox over HTTP (`current` profile) and its Secrets Manager through
 * the function's real SDK client, provision-alerts' ledger in dynalite, the manifest and prune on,
 * as the stack deploys it. One run converges; the next is a no-op reading each list once; a rotated
 * secret resends the header; removing the webhook's file (and what uses it) prunes it, after which
 * a no-op lists dashboards only; a deadline mid-run resumes with nothing made twice; a secret that
 * is missing or not granted is one line naming file:line, field and secret id, with 0 writes.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CreateSecretCommand, PutSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { describe, expect, it } from 'vitest';
import { s3PutEvent, scheduledEvent } from '../../bench/events';
import { fakeClock, type FakeClock } from '../../bench/fake-clock';
import { RateLimiterRegistry } from '../../lib/api/rate-limiter';
import type { SyncFunctionSummary } from '../../lib/dashboards/function-run';
import { setLogSink } from '../../lib/log';
import { alertRows } from '../../sandbox/profiles/current/rows';
import {
  apiRequests as api,
  BUCKET,
  continuations,
  forget,
  PREFIX,
  syncWorld,
  type SyncWorld,
} from '../support/sync-world';

const URL_SECRET = 'cloudops/webhooks/checkout-url';
const TOKEN_SECRET = 'cloudops/webhooks/checkout';
const URL_VALUE = 'https://hooks.example.test/deployed/Hk3mW8qZ1vB6';
const TOKEN_1 = 'Token deployed-first-5a9c1e7b3d';
const TOKEN_2 = 'Token deployed-second-0f4b8d2a6c';
const VALUES = [URL_VALUE, TOKEN_1, TOKEN_2];
const EXAMPLES = path.join(import.meta.dirname, '../../dashboards');
const FILES = [
  'checkout-service.yaml',
  'platform-overview.json',
  'data/ingest.yml',
  'alerting/checkout-alerts.yaml',
  'alerting/checkout-errors-search.yaml',
];

interface World extends SyncWorld {
  run(extra?: Parameters<SyncWorld['handler']>[1]): ReturnType<SyncWorld['handler']>;
  /** Every line the runs logged (the function's own logger, at info). */
  logs: string[];
}

/** The sync world with the example folder in the bucket and the webhook's two secrets. */
async function world(options: { fake?: FakeClock; limit?: number } = {}): Promise<World> {
  // The values are not registered here: redacting them is the function's job, checked below.
  const w = await syncWorld(options);
  await w.sm.send(new CreateSecretCommand({ Name: URL_SECRET, SecretString: URL_VALUE }));
  await w.sm.send(
    new CreateSecretCommand({
      Name: TOKEN_SECRET,
      SecretString: JSON.stringify({ authorization: TOKEN_1 }),
    }),
  );
  for (const file of FILES) w.files.set(PREFIX + file, await example(file));
  const env = {
    CLOUDOPS_LOG_LEVEL: 'info',
    CLOUDOPS_DASHBOARDS_OWNER: 'deployed',
    // The dashboards' own variable (an id, not a secret).
    CLOUDOPS_VAR_WEBHOOK_ID: w.sb.info.webhookId,
    // As the stack grants them: by name, by ARN without its suffix (one granted, never made).
    CLOUDOPS_DASHBOARDS_WEBHOOK_SECRETS: `${URL_SECRET}, arn:aws:secretsmanager:us-east-1:123456789012:secret:${TOKEN_SECRET}, cloudops/webhooks/absent`,
  };
  const logs: string[] = [];
  const run = (extra = {}) => {
    const handler = w.handler(env, extra);
    return async (event: unknown) => {
      const previous = setLogSink((line) => {
        logs.push(line);
        previous(line);
      });
      try {
        return await handler(event);
      } finally {
        setLogSink(previous);
      }
    };
  };
  return Object.assign(w, { run, logs });
}

/** An example file as the bucket holds it: the webhook's values as secret references. */
async function example(file: string): Promise<string> {
  const text = await readFile(path.join(EXAMPLES, file), 'utf8');
  if (!file.endsWith('checkout-alerts.yaml')) return text;
  return text
    .replace('url: ${ALERTS_WEBHOOK_URL}', `url: { secret: ${URL_SECRET} }`)
    .replace(
      'Authorization: ${ALERTS_WEBHOOK_TOKEN}',
      `Authorization: { secret: ${TOKEN_SECRET}, key: authorization }`,
    );
}

/** `GET dashboards`, `PUT webhooks/{id}`: method and the path after the service. */
const requests = (w: World) =>
  api(w).map(
    (e) =>
      `${e.method} ${e.path
        .replace(/.*\/observability\//, '')
        .replace(/.*\/api\/v2\//, '')
        .replace(/\/[0-9a-f]{24}$/, '/{id}')}`,
  );
const writes = (w: World) => requests(w).filter((r) => !r.startsWith('GET '));
const secretReads = (w: World) =>
  w.sb.requestLog
    .entries()
    .filter((e) => e.surface === 'secretsmanager' && e.operation === 'GetSecretValue');
const service = (w: World) => w.sb.info.serviceId;
const webhooks = (w: World, name: string) =>
  w.sb.store.state.webhooks.filter((h) => h.serviceId === service(w) && h.name === name);
const searches = (w: World, name: string) =>
  (w.sb.store.state.savedSearches ?? []).filter(
    (s) => s.serviceId === service(w) && s.name === name,
  );
const alertsNamed = (w: World, name: string) =>
  alertRows(w.sb.store.state).filter((a) => a.serviceId === service(w) && a.name === name);
/** The line of the first occurrence of `needle` in `text`. */
const lineOf = (text: string, needle: string) =>
  text.slice(0, text.indexOf(needle)).split('\n').length;
const schedule = () => scheduledEvent();
const s3Put = (key: string) => s3PutEvent(BUCKET, key);
/** What the runs answered, emitted and logged holds no secret value (and they did log). */
const noValueIn = (w: World, summary: unknown) => {
  expect(w.logs.length).toBeGreaterThan(0);
  const seen = [JSON.stringify(summary), ...w.stubs.emitted, ...w.logs].join('\n');
  for (const v of VALUES) expect(seen).not.toContain(v);
};

describe('the sync function applies webhook and saved-search files', () => {
  it('converges in one run; a no-op reads each list once; a rotated secret resends the header', async () => {
    const w = await world();
    const first = await w.run()(s3Put(`${PREFIX}alerting/checkout-alerts.yaml`));
    noValueIn(w, first);
    expect(first).toMatchObject({ mode: 'apply', counts: { create: 3 } });
    // Every kind is counted by name, in the summary, its line and the run's log.
    expect(first.summaryLine).toBe(
      'Apply complete: 3 dashboards created, 1 webhook created, 1 saved search created, ' +
        '3 alerts created, 0 updated, 0 deleted, 0 unchanged.',
    );
    const each = { dashboard: 3, webhook: 1, savedSearch: 1, alert: 3 };
    const as = (outcome: string) =>
      Object.fromEntries(Object.entries(each).map(([kind, n]) => [kind, { [outcome]: n }]));
    expect(first.planned).toEqual(as('create'));
    expect(first.applied).toEqual(as('created'));
    const applyLogs = w.logs
      .map((l) => JSON.parse(l) as { message: string; summary?: string })
      .filter((l) => l.message === 'dashboard apply');
    expect(applyLogs.map((l) => l.summary)).toEqual([first.summaryLine]);
    expect(first.results.filter((r) => r.kind)).toEqual([
      {
        kind: 'webhook',
        key: 'alerting/checkout-alerts',
        name: 'Checkout alerts',
        status: 'created',
      },
      {
        kind: 'savedSearch',
        key: 'alerting/checkout-errors-search',
        name: 'Checkout errors',
        status: 'created',
      },
    ]);
    const [hook] = webhooks(w, 'Checkout alerts');
    expect(hook).toMatchObject({ url: URL_VALUE, headers: { Authorization: TOKEN_1 } });
    const [search] = searches(w, 'Checkout errors');
    expect(alertsNamed(w, 'Checkout errors keep coming').map((a) => a.savedSearchId)).toEqual([
      search.id,
    ]);
    // The tile alert naming the folder's webhook points at the webhook this run made.
    const quiet = alertsNamed(w, 'Checkout went quiet');
    expect(
      quiet.flatMap((a) => a.channels.map((c) => ('webhookId' in c ? c.webhookId : ''))),
    ).toEqual([hook.id]);
    // Each secret read once, before the first write.
    expect(secretReads(w)).toHaveLength(2);
    const order = writes(w);
    expect(order.indexOf('POST webhooks')).toBeLessThan(order.indexOf('POST saved-searches'));
    expect(order.indexOf('POST saved-searches')).toBeLessThan(order.indexOf('POST dashboards'));

    forget(w);
    const noop = await w.run()(schedule());
    expect(noop).toMatchObject({ pending: false, eventsSent: 0 });
    expect(noop.summaryLine).toBe(
      'Apply complete: 0 created, 0 updated, 0 deleted, 3 dashboards unchanged, ' +
        '1 webhook unchanged, 1 saved search unchanged.',
    );
    expect(writes(w)).toEqual([]);
    // One list per kind the bucket uses, each once; the search's source name and its alert
    // need the sources and alerts lists (the dashboards' alerts are vouched by the ledger).
    expect(requests(w).sort()).toEqual([
      'GET alerts',
      'GET dashboards',
      'GET saved-searches',
      'GET sources',
      'GET webhooks',
    ]);
    // The webhook's secrets are read every run (once each): their values may have changed.
    expect(secretReads(w)).toHaveLength(2);

    // The webhook file is unchanged; its header's secret is not.
    await w.sm.send(
      new PutSecretValueCommand({
        SecretId: TOKEN_SECRET,
        SecretString: JSON.stringify({ authorization: TOKEN_2 }),
      }),
    );
    forget(w);
    const rotated = await w.run()(schedule());
    noValueIn(w, rotated);
    expect(writes(w)).toEqual(['PUT webhooks/{id}']);
    expect(webhooks(w, 'Checkout alerts')).toEqual([
      expect.objectContaining({ id: hook.id, headers: { Authorization: TOKEN_2 } }),
    ]);
    forget(w);
    noValueIn(w, await w.run()(schedule()));
    expect(writes(w)).toEqual([]);
  });

  it('removing the webhook file (and what used it) prunes it; then a no-op lists dashboards only', async () => {
    const w = await world();
    await w.run()(s3Put(`${PREFIX}checkout-service.yaml`));
    const [hook] = webhooks(w, 'Checkout alerts');
    const [search] = searches(w, 'Checkout errors');
    // The webhook file alone goes: a tile alert still uses it, so nothing is written.
    const hookFile = w.files.get(`${PREFIX}alerting/checkout-alerts.yaml`)!;
    w.files.delete(`${PREFIX}alerting/checkout-alerts.yaml`);
    forget(w);
    await expect(w.run()(scheduledEvent())).rejects.toThrow(
      /webhook "Checkout alerts" \([0-9a-f]{24}\) is not deleted: \d alert\(s\) still use it: .*"Checkout went quiet"/,
    );
    expect(writes(w)).toEqual([]);
    w.files.set(`${PREFIX}alerting/checkout-alerts.yaml`, hookFile);

    // The last webhook and saved-search files go; the tile alert moves to the seeded webhook.
    w.files.delete(`${PREFIX}alerting/checkout-alerts.yaml`);
    w.files.delete(`${PREFIX}alerting/checkout-errors-search.yaml`);
    const checkout = w.files.get(`${PREFIX}checkout-service.yaml`)!;
    w.files.set(
      `${PREFIX}checkout-service.yaml`,
      checkout.replace('webhook: Checkout alerts', "webhookId: '${WEBHOOK_ID}'"),
    );
    forget(w);
    const pruned = await w.run()(s3Put(`${PREFIX}checkout-service.yaml`));
    expect(pruned.results.filter((r) => r.kind)).toEqual([
      expect.objectContaining({ kind: 'savedSearch', status: 'deleted' }),
      expect.objectContaining({ kind: 'webhook', status: 'deleted' }),
    ]);
    expect(w.sb.store.state.webhooks.some((h) => h.id === hook.id)).toBe(false);
    expect((w.sb.store.state.savedSearches ?? []).some((s) => s.id === search.id)).toBe(false);
    // The alert moved before the webhook went (the service refuses deleting one in use).
    expect(writes(w).indexOf('DELETE webhooks/{id}')).toBe(writes(w).length - 1);

    forget(w);
    await w.run()(schedule());
    // The manifest says no webhook or saved search of this owner is left: nothing else is listed.
    expect(requests(w)).toEqual(['GET dashboards']);
  });

  it('a deadline mid-run: each round resumes where the last stopped; nothing is made twice', async () => {
    const fake = fakeClock();
    // 3 requests per 10 s and 30 s a run: about 9 requests a run, most of the first run's lists.
    const w = await world({ fake, limit: 3 });
    const run = w.run({
      clock: fake.clock,
      limiters: new RateLimiterRegistry(fake.clock),
      deadline: () => ({ signal: fake.timeout(30_000) }),
    });
    const summaries = [await run(s3Put(`${PREFIX}checkout-service.yaml`))];
    for (let i = 0; i < 8; i++) {
      const next = continuations(w)[i];
      if (!next) break;
      fake.advance(1_000);
      summaries.push(await run(next));
    }
    const stops = summaries.map((s) => s.stopped);
    expect(summaries.length).toBeGreaterThan(2);
    expect(stops.at(-1)).toBeUndefined();
    for (const s of stops.slice(0, -1))
      expect(s).toMatchObject({ phase: 'applying', continued: true });
    // The first round stopped after the webhook and the saved search, before any dashboard;
    // the next found both by their markers and wrote neither again.
    const kinds = (s: SyncFunctionSummary) =>
      s.results.filter((r) => r.kind).map((r) => `${r.kind} ${r.status}`);
    expect(kinds(summaries[0])).toEqual(['webhook created', 'savedSearch created']);
    expect(summaries[0].results.filter((r) => !r.kind).map((r) => r.status)).toEqual(
      Array(3).fill('not applied'),
    );
    expect(kinds(summaries[1])).toEqual(['webhook unchanged', 'savedSearch unchanged']);
    expect(webhooks(w, 'Checkout alerts')).toHaveLength(1);
    expect(searches(w, 'Checkout errors')).toHaveLength(1);
    for (const name of ['Checkout errors keep coming', 'Checkout went quiet'])
      expect(alertsNamed(w, name)).toHaveLength(1);
    const ours = w.sb.store.state.dashboards.filter((d) => d.tags.includes('cloudops@deployed'));
    expect(ours.map((d) => d.name).sort()).toEqual(
      ['Checkout service', 'Ingestion pipes', 'Platform overview'].sort(),
    );
    expect(api(w).filter((e) => e.status === 429)).toEqual([]);
    noValueIn(w, summaries);
  });

  it('a missing or ungranted secret: one line naming file:line, field and secret id; 0 writes', async () => {
    const w = await world();
    const hookFile = `${PREFIX}alerting/checkout-alerts.yaml`;
    /** The run's refusal: the lines under its first (one per problem). */
    const refusal = async () => {
      const error = await w
        .run()(s3Put(hookFile))
        .then(
          () => new Error('the run was not refused'),
          (e: Error) => e,
        );
      return error.message
        .split('\n')
        .slice(1)
        .map((l) => l.trim());
    };
    w.files.set(hookFile, w.files.get(hookFile)!.replace(URL_SECRET, 'cloudops/webhooks/absent'));
    const lines: string[] = [];
    const previous = setLogSink((line) => {
      lines.push(line);
      previous(line);
    });
    try {
      expect(await refusal()).toEqual([
        expect.stringMatching(
          /^alerting\/checkout-alerts\.yaml:\d+:\d+ url: secret cloudops\/webhooks\/absent not found$/,
        ),
      ]);
    } finally {
      setLogSink(previous);
    }
    expect(writes(w)).toEqual([]);
    expect(lines.join('\n')).toMatch(/dashboard sync failed.*cloudops\/webhooks\/absent not found/);

    // The role may read the URL's secret but not the header's (as IAM answers): refused alike.
    w.files.set(hookFile, await example('alerting/checkout-alerts.yaml'));
    w.sb.secretsManager.grantReads('test', [URL_SECRET]);
    expect(await refusal()).toEqual([
      expect.stringMatching(
        /^alerting\/checkout-alerts\.yaml:\d+:\d+ headers\.Authorization: secret cloudops\/webhooks\/checkout may not be read here: access denied/,
      ),
    ]);
    expect(writes(w)).toEqual([]);

    // A `${VARIABLE}` has no value in the function: one line per field, saying what to write.
    w.files.set(
      hookFile,
      await readFile(path.join(EXAMPLES, 'alerting/checkout-alerts.yaml'), 'utf8'),
    );
    const said = 'the sync function has no value for a variable here: write it as { secret';
    expect(await refusal()).toEqual([
      expect.stringMatching(/checkout-alerts\.yaml:\d+:\d+ url: /),
      expect.stringMatching(/checkout-alerts\.yaml:\d+:\d+ headers\.Authorization: /),
    ]);
    expect((await refusal()).every((l) => l.includes(said))).toBe(true);
    expect(writes(w)).toEqual([]);
  });

  it('a reference to a secret the stack does not allow (the management key): refused, 0 reads, 0 writes', async () => {
    const w = await world();
    const hookFile = `${PREFIX}alerting/checkout-alerts.yaml`;
    const keySecret = w.sb.info.keySecretId;
    // Its role may read it (the function's own credentials), so IAM would not stop it.
    w.files.set(
      hookFile,
      (await example('alerting/checkout-alerts.yaml')).replace(
        `{ secret: ${TOKEN_SECRET}, key: authorization }`,
        `{ secret: '${keySecret}', key: keySecret }`,
      ),
    );
    const error = await w
      .run()(s3Put(hookFile))
      .then(
        () => new Error('the run was not refused'),
        (e: Error) => e,
      );
    expect(
      error.message
        .split('\n')
        .slice(1)
        .map((l) => l.trim()),
    ).toEqual([
      `alerting/checkout-alerts.yaml:${lineOf(w.files.get(hookFile)!, keySecret)}:18 headers.Authorization: secret ${keySecret} is not among the secrets the stack allows the sync to read (cloudops:dashboardWebhookSecrets)`,
    ]);
    expect(error.message).not.toContain(w.sb.info.keySecret);
    // Nothing read (not even the allowed URL secret), nothing written.
    expect(secretReads(w)).toEqual([]);
    expect(writes(w)).toEqual([]);
  });
});
