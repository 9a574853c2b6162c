/**
 * Webhook and saved-search files through the CLI against the sandbox (`current` profile): slack's
 * refusals and literal secrets fail validation with `file:line field`, before any request;
 * headers are resent only when their digest changes (the plan says which); deleting a webhook an
 * alert still uses is refused at plan time naming it; deleting a saved search lists the alerts
 * it takes with it.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/log';
import { registerSecret } from '../../lib/redact';
import { alertRows } from '../../sandbox/profiles/current/rows';
import { startDashboardsSandbox, type DashboardsSandbox } from '../support/dashboards-sandbox';

const captured = createLogger({ level: 'debug', fields: { test: 'dashboards-kinds' } });
const TOKEN_1 = 'Token kinds-first-4e1d9c7a2b';
const TOKEN_2 = 'Token kinds-second-8f2a6b1c3d';
const HOOK_URL = 'https://hooks.example.test/kinds/Q9wE3rT7yU1i';

let ds: DashboardsSandbox;
let dir: string;

beforeAll(async () => {
  for (const s of [TOKEN_1, TOKEN_2, HOOK_URL]) registerSecret(s);
  ds = await startDashboardsSandbox('current', () => ({
    CLOUDOPS_VAR_HOOK_URL: HOOK_URL,
    CLOUDOPS_VAR_HOOK_TOKEN: TOKEN_1,
  }));
  dir = await mkdtemp(path.join(tmpdir(), 'cloudops-kinds-'));
});
afterAll(async () => {
  await ds.sb.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => ds.sb.requestLog.clear());

const cli = async (...argv: string[]) => {
  const run = await ds.cli(...argv);
  captured.debug('cli output', { argv: argv.join(' '), out: run.out, err: run.err });
  for (const secret of [TOKEN_1, TOKEN_2, HOOK_URL])
    expect(run.out + run.err).not.toContain(secret);
  return run;
};
const write = (file: string, lines: string[]) =>
  writeFile(path.join(dir, file), lines.join('\n') + '\n');
const remove = (file: string) => rm(path.join(dir, file), { force: true });

const webhookFile = (name: string, extra: string[] = []) => [
  'kind: webhook',
  `name: ${name}`,
  'service: generic',
  'url: ${HOOK_URL}',
  ...extra,
];
const searchFile = (name: string, webhook: string) => [
  'kind: savedSearch',
  `name: ${name}`,
  'source: Logs',
  "where: 'level:error'",
  'alerts:',
  '  - name: Too many',
  '    threshold: 10',
  '    thresholdType: above',
  '    interval: 5m',
  `    channel: { type: webhook, webhook: ${webhook} }`,
];
const webhookRow = (name: string) =>
  ds.sb.store.state.webhooks.find((w) => w.serviceId === ds.sb.info.serviceId && w.name === name);

describe('webhook and saved-search files', () => {
  it('slack with headers, and a literal URL, fail validation naming file:line and field, 0 requests', async () => {
    const bad = await mkdtemp(path.join(tmpdir(), 'cloudops-kinds-bad-'));
    try {
      await writeFile(
        path.join(bad, 'hook.yaml'),
        [
          'kind: webhook',
          'name: Chat',
          'service: slack',
          'url: https://hooks.slack.test/T1/B2/literal',
          'headers:',
          '  X-Token: ${HOOK_TOKEN}',
          '',
        ].join('\n'),
      );
      const plan = await cli('plan', '--dir', bad);
      expect(plan.code).toBe(1);
      expect(plan.err).toMatch(/hook\.yaml:4:\d+ url: write it as a \$\{VARIABLE\}/);
      expect(plan.err).toMatch(
        /hook\.yaml:6:\d+ headers: not supported for the slack webhook service/,
      );
      expect(ds.api()).toEqual([]);
    } finally {
      await rm(bad, { recursive: true, force: true });
    }
  });

  it('headers are sent on create, not resent while their digest holds, resent when it changes', async () => {
    await write('hook.yaml', webhookFile('Kinds hook', ['headers:', '  X-Token: ${HOOK_TOKEN}']));
    await write('search.yaml', searchFile('Kinds errors', 'Kinds hook'));
    const first = await cli('apply', '--dir', dir, '--auto-approve');
    expect({ code: first.code, err: first.err }).toEqual({ code: 0, err: '' });
    expect(webhookRow('Kinds hook')!.headers).toEqual({ 'X-Token': TOKEN_1 });

    // Headers set by hand on the service are not seen (not readable): no resend while the digest holds.
    webhookRow('Kinds hook')!.headers = { 'X-Token': 'changed by hand' };
    const same = await cli('plan', '--dir', dir, '--detailed-exitcode', '--json');
    expect(same.code).toBe(0);
    const webhook = (
      JSON.parse(same.out) as { objects: { kind: string; writeOnly?: object }[] }
    ).objects.find((o) => o.kind === 'webhook');
    expect(webhook?.writeOnly).toEqual({ headers: 'unchanged (not readable)' });

    ds.env.CLOUDOPS_VAR_HOOK_TOKEN = TOKEN_2;
    try {
      const plan = await cli('plan', '--dir', dir, '--detailed-exitcode');
      expect(plan.code).toBe(2);
      expect(plan.out).toContain('~ headers: resent (changed)');
      expect((await cli('apply', '--dir', dir, '--auto-approve')).code).toBe(0);
      expect(webhookRow('Kinds hook')!.headers).toEqual({ 'X-Token': TOKEN_2 });
      expect((await cli('plan', '--dir', dir, '--detailed-exitcode')).code).toBe(0);
    } finally {
      ds.env.CLOUDOPS_VAR_HOOK_TOKEN = TOKEN_1;
    }
  });

  it('deleting a webhook an alert uses is refused at plan time, naming it, with 0 writes', async () => {
    // A second webhook file keeps the kind listed; the first one's file goes, with --prune.
    await write('other.yaml', webhookFile('Kinds other'));
    expect((await cli('apply', '--dir', dir, '--auto-approve')).code).toBe(0);
    await remove('hook.yaml');
    await write('search.yaml', searchFile('Kinds errors', 'Kinds other'));
    const hook = webhookRow('Kinds hook')!;
    // An alert the files know nothing of (made by hand) uses it too.
    const search = (ds.sb.store.state.savedSearches ?? []).find((s) => s.name === 'Kinds errors')!;
    const ours = alertRows(ds.sb.store.state).find((a) => a.savedSearchId === search.id)!;
    alertRows(ds.sb.store.state).push({
      ...structuredClone(ours),
      id: 'aaaaaaaaaaaaaaaaaaaaaaaa',
      name: 'Hand made',
      message: null,
    });
    ds.sb.requestLog.clear();
    const plan = await cli('plan', '--dir', dir, '--prune');
    expect(plan.code).toBe(1);
    expect(plan.err).toContain(
      `webhook "Kinds hook" (${hook.id}) is not deleted: 1 alert(s) still use it: "Hand made" (aaaaaaaaaaaaaaaaaaaaaaaa)`,
    );
    // One line (besides the default owner's prune warning).
    const lines = plan.err.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('warning:'));
    expect(lines).toHaveLength(1);
    expect(ds.writes()).toEqual([]);
    // Without the hand-made alert the same plan goes through: ours moves to the other webhook first.
    const rows = alertRows(ds.sb.store.state);
    rows.splice(
      rows.findIndex((a) => a.id === 'aaaaaaaaaaaaaaaaaaaaaaaa'),
      1,
    );
    const apply = await cli('apply', '--dir', dir, '--prune', '--auto-approve');
    expect(apply.code, apply.out).toBe(0);
    expect(webhookRow('Kinds hook')).toBeUndefined();
  });

  it('deleting a saved search lists the alerts it takes with it', async () => {
    await write('search2.yaml', searchFile('Kinds second', 'Kinds other'));
    expect((await cli('apply', '--dir', dir, '--auto-approve')).code).toBe(0);
    await remove('search.yaml');
    const plan = await cli('plan', '--dir', dir, '--prune');
    expect(plan.code).toBe(0);
    expect(plan.out).toMatch(
      /\[-\] delete saved search "Kinds errors".*\n(.*\n)*\s+! deletes 1 alert\(s\) with it: "Too many"/,
    );
    expect((await cli('apply', '--dir', dir, '--prune', '--auto-approve')).code).toBe(0);
    const left = (ds.sb.store.state.savedSearches ?? []).map((s) => s.name);
    expect(left).not.toContain('Kinds errors');
  });

  it('a saved plan writes webhooks from their variables, refuses a changed one, and goes stale like dashboards', async () => {
    const planFile = path.join(dir, '..', `kinds-plan-${Date.now()}.json`);
    await write(
      'hook3.yaml',
      webhookFile('Kinds third', ["headers: { X-Token: '${HOOK_TOKEN}' }"]),
    );
    const saved = await cli('plan', '--dir', dir, '--out', planFile);
    expect(saved.code).toBe(0);
    const text = await readFile(planFile, 'utf8');
    captured.debug('plan file', { text });
    for (const value of [HOOK_URL, TOKEN_1]) expect(text).not.toContain(value);
    expect(text).toContain('${HOOK_TOKEN}');

    // The variable's value changed between plan and apply: refused before any write.
    ds.sb.requestLog.clear();
    ds.env.CLOUDOPS_VAR_HOOK_TOKEN = TOKEN_2;
    const changed = await cli('apply', planFile).finally(() => {
      ds.env.CLOUDOPS_VAR_HOOK_TOKEN = TOKEN_1;
    });
    expect(changed.code).toBe(1);
    expect(changed.err).toMatch(
      /webhook "Kinds third" headers\.X-Token \(variable HOOK_TOKEN\): changed since the plan: re-plan/,
    );
    expect(ds.api()).toEqual([]);

    // As planned: applied; the service holds the values and the next plan has nothing to do.
    const applied = await cli('apply', planFile);
    expect({ code: applied.code, err: applied.err }).toEqual({ code: 0, err: '' });
    expect(webhookRow('Kinds third')).toMatchObject({
      url: HOOK_URL,
      headers: { 'X-Token': TOKEN_1 },
    });
    expect((await cli('plan', '--dir', dir, '--detailed-exitcode')).code).toBe(0);
    await remove('hook3.yaml');

    // A saved search created by another apply after the plan: the saved plan is stale.
    await write('search4.yaml', searchFile('Kinds fourth', 'Kinds other'));
    expect((await cli('plan', '--dir', dir, '--out', planFile)).code).toBe(0);
    expect((await cli('apply', '--dir', dir, '--auto-approve')).code).toBe(0);
    ds.sb.requestLog.clear();
    const stale = await cli('apply', planFile);
    expect(stale.code).toBe(1);
    expect(stale.err).toMatch(/saved search "Kinds fourth": created since the plan/);
    expect(ds.writes()).toEqual([]);
    await rm(planFile, { force: true });
  });
});
