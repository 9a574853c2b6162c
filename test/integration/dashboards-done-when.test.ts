/**
 * Issue 23's "done when", through the CLI over real HTTP against a fresh sandbox (`current`
 * profile): one apply of the example folder creates its webhook, saved search, dashboards, the
 * tile alert and the saved-search alert (both on the example webhook, named in the files); the
 * next plan has no changes; pull into an empty folder, then plan, has no changes; a tile the
 * service refuses fails at plan time naming file, line and field, with 0 writes. The webhook's
 * URL and header never show in any output (the suite's leak scan checks the captured log too).
 */
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/log';
import { registerSecret } from '../../lib/redact';
import { alertRows } from '../../sandbox/profiles/current/rows';
import { startDashboardsSandbox, type DashboardsSandbox } from '../support/dashboards-sandbox';

const EXAMPLES = path.join(import.meta.dirname, '../../dashboards');
const captured = createLogger({ level: 'debug', fields: { test: 'dashboards-done-when' } });
const URL_VALUE = 'https://hooks.example.test/services/T0CHECKOUT/B0PAGES/zq8Lr4kWmN2pX7vY';
const TOKEN = 'Token 7f3c9a1e5b2d8f4a6c0e9b3d';

let ds: DashboardsSandbox;
let work: string;

beforeAll(async () => {
  registerSecret(URL_VALUE);
  registerSecret(TOKEN);
  ds = await startDashboardsSandbox('current', (s) => ({
    CLOUDOPS_VAR_WEBHOOK_ID: s.store.state.seed.webhookId,
    CLOUDOPS_VAR_ALERTS_WEBHOOK_URL: URL_VALUE,
    CLOUDOPS_VAR_ALERTS_WEBHOOK_TOKEN: TOKEN,
  }));
  work = await mkdtemp(path.join(tmpdir(), 'cloudops-done-when-'));
});
afterAll(async () => {
  await ds.sb.close();
  await rm(work, { recursive: true, force: true });
});
beforeEach(() => ds.sb.requestLog.clear());

const cli = async (...argv: string[]) => {
  const run = await ds.cli(...argv);
  // Into the captured log, so the leak scan checks what the CLI printed.
  captured.debug('cli output', { argv: argv.join(' '), out: run.out, err: run.err });
  expect(run.out + run.err).not.toContain(URL_VALUE);
  expect(run.out + run.err).not.toContain(TOKEN);
  return run;
};
const state = () => ds.sb.store.state;
const service = () => ds.sb.info.serviceId;

describe('issue 23 done when: webhooks, saved searches and their alerts as files', () => {
  it('one apply creates the webhook, saved search, dashboards, tile alert and search alert', async () => {
    const out = await cli('apply', '--dir', EXAMPLES, '--auto-approve');
    expect({ code: out.code, err: out.err, tail: out.out.slice(-800) }).toMatchObject({
      code: 0,
      err: '',
    });
    const webhook = state().webhooks.find(
      (w) => w.serviceId === service() && w.name === 'Checkout alerts',
    );
    expect(webhook).toBeDefined();
    // The URL and the header reached the service, from the variables.
    expect(webhook!.url).toBe(URL_VALUE);
    expect(webhook!.headers).toEqual({ Authorization: TOKEN });
    const search = (state().savedSearches ?? []).find(
      (s) => s.serviceId === service() && s.name === 'Checkout errors',
    );
    expect(search).toBeDefined();
    const logs = state().sources.find((s) => s.serviceId === service() && s.name === 'Logs');
    expect(search!.sourceId).toBe(logs!.id);
    const alerts = alertRows(state()).filter((a) => a.serviceId === service());
    const onSearch = alerts.filter((a) => a.savedSearchId === search!.id);
    expect(onSearch.map((a) => a.name)).toEqual(['Checkout errors keep coming']);
    const quiet = alerts.find((a) => a.name === 'Checkout went quiet');
    for (const a of [onSearch[0], quiet!])
      expect(a.channels.map((c) => ('webhookId' in c ? c.webhookId : c.type))).toEqual([
        webhook!.id,
      ]);
    // Created in the order files refer to each other: webhook, saved search, dashboards, alerts.
    const posts = ds
      .api()
      .filter((e) => e.method === 'POST' && !e.path.endsWith('/validate'))
      .map((e) => e.path.replace(/.*\//, ''));
    expect(posts.indexOf('webhooks')).toBeLessThan(posts.indexOf('saved-searches'));
    expect(posts.indexOf('saved-searches')).toBeLessThan(posts.indexOf('dashboards'));
    expect(posts.lastIndexOf('dashboards')).toBeLessThan(posts.lastIndexOf('alerts'));
  });

  it('the next plan shows no changes, and costs one list per kind (no write)', async () => {
    const plan = await cli('plan', '--dir', EXAMPLES, '--detailed-exitcode');
    expect({ code: plan.code, out: plan.out }).toMatchObject({ code: 0 });
    expect(plan.out).toContain('No changes.');
    expect(ds.writes()).toEqual([]);
    const lists = ds.api().map((e) => `${e.method} ${e.path.replace(/.*\/v\d\//, '')}`);
    // One list of each kind the folder uses (dashboards, webhooks, saved searches, alerts, sources).
    expect(lists.length, lists.join('\n')).toBe(new Set(lists).size);
  });

  it('pull into an empty folder, then plan: no changes', async () => {
    const pulled = path.join(work, 'pulled');
    // The --targets leave out the sandbox's hand-made dashboards (they would plan as creates).
    const targets = [
      'checkout-service',
      'platform/overview',
      'data/ingest',
      'alerting/checkout-alerts',
      'alerting/checkout-errors-search',
    ].flatMap((t) => ['--target', t]);
    const pull = await cli('pull', '--dir', pulled, ...targets);
    expect({ code: pull.code, err: pull.err }).toMatchObject({ code: 0 });
    const files = await readdir(pulled, { recursive: true });
    const texts = await Promise.all(
      files.filter((f) => /\.ya?ml$/.test(f)).map((f) => readFile(path.join(pulled, f), 'utf8')),
    );
    expect(texts.some((t) => t.includes('kind: webhook'))).toBe(true);
    expect(texts.some((t) => t.includes('kind: savedSearch'))).toBe(true);
    // A pulled webhook names its URL as a variable, never the value.
    expect(texts.join('\n')).not.toContain(URL_VALUE);
    ds.sb.requestLog.clear();
    const plan = await cli('plan', '--dir', pulled, '--detailed-exitcode');
    expect({ code: plan.code, out: plan.out, err: plan.err }).toMatchObject({ code: 0 });
    expect(ds.writes()).toEqual([]);
  });

  it('a tile the service would refuse fails at plan time naming file, line and field, 0 writes', async () => {
    const bad = path.join(work, 'bad');
    await cp(EXAMPLES, bad, { recursive: true });
    const file = path.join(bad, 'checkout-service.yaml');
    const text = await readFile(file, 'utf8');
    // A colour rule operator only the service's dry run refuses (the file schema passes it through).
    await writeFile(
      file,
      text.replace(
        '  - name: Runbook',
        [
          '  - name: Error colour',
          '    x: 0',
          '    y: 9',
          '    w: 6',
          '    h: 3',
          '    config:',
          '      displayType: number',
          '      source: Logs',
          '      select: [{ aggFn: count, where: "level:error", whereLanguage: lucene }]',
          '      colorRules: [{ operator: regex, value: "5..", color: red }]',
          '  - name: Runbook',
        ].join('\n'),
      ),
    );
    const line = text.slice(0, text.indexOf('  - name: Runbook')).split('\n').length + 9;
    ds.sb.requestLog.clear();
    const apply = await cli('apply', '--dir', bad, '--auto-approve');
    expect(apply.code).toBe(1);
    expect(apply.err).toMatch(
      new RegExp(
        `checkout-service\\.yaml:${line}:\\d+ tiles\\[\\d+\\]\\.config\\.colorRules\\[0\\]\\.operator: the service refuses it`,
      ),
    );
    expect(ds.writes()).toEqual([]);
  });
});
