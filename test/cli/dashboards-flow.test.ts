/**
 * `cloudops dashboards` as a Terraform user drives it, over real HTTP against the sandbox:
 * alerts in the plan, exit codes, approval, owners, --service, --target, pull + adopt, and an
 * interrupted apply. Counts requests from the sandbox's request log.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Ask } from '../../cli/ask';
import { dashboardsCommand } from '../../cli/commands/dashboards';
import { sandboxEnv } from '../../cli/connect';
import type { CliIO } from '../../cli/io';
import { createLogger } from '../../lib/log';
import { startSandbox, type Sandbox } from '../../sandbox/index';

const FAST = { limit: 100_000, windowMs: 1_000 };
const captured = createLogger({ level: 'debug', fields: { test: 'dashboards-flow' } });

describe.each(['spec', 'current'] as const)('dashboards CLI (sandbox profile %s)', (profile) => {
  let sb: Sandbox;
  let root: string;
  let env: Record<string, string>;

  const api = () =>
    sb.requestLog
      .entries()
      .filter((e) => e.surface === 'management' || e.surface === 'observability');
  // The dry-run validate is a POST that writes nothing.
  const writes = () =>
    api().filter((e) => e.method !== 'GET' && !e.path.endsWith('/dashboards/validate'));

  async function cli(
    argv: string[],
    opts: { tty?: boolean; env?: Record<string, string>; ask?: Ask; signal?: AbortSignal } = {},
  ) {
    const out: string[] = [];
    const err: string[] = [];
    const io: CliIO = {
      out: (t) => void out.push(t),
      err: (t) => void err.push(t),
      env: { ...env, ...opts.env },
      isTTY: opts.tty ?? false,
    };
    const code = await dashboardsCommand.runWith(
      argv,
      io,
      opts.signal ?? new AbortController().signal,
      opts.ask ?? (() => Promise.reject(new Error('asked off a terminal'))),
    );
    const result = { code, out: out.join('\n'), err: err.join('\n') };
    captured.debug('cli output', { argv: argv.join(' '), ...result });
    return result;
  }

  async function dir(name: string, files: Record<string, string>): Promise<string> {
    const d = path.join(root, name);
    await rm(d, { recursive: true, force: true });
    const { mkdir } = await import('node:fs/promises');
    await mkdir(d, { recursive: true });
    for (const [f, text] of Object.entries(files)) await writeFile(path.join(d, f), text);
    return d;
  }

  const alerted = (threshold: number) => `name: Checkout
tiles:
  - name: errors
    x: 0
    y: 0
    w: 12
    h: 4
    series:
      - { type: time, source: Logs, aggFn: count, where: "level:error", whereLanguage: lucene, groupBy: [] }
    alerts:
      - name: too many errors
        threshold: ${threshold}
        thresholdType: above
        interval: 5m
        channel:
          type: webhook
          webhookId: ${sb.info.webhookId}
  - { name: latency, x: 12, y: 0, w: 12, h: 4, markdown: "p99 latency" }
`;

  beforeAll(async () => {
    sb = await startSandbox({
      profile,
      port: 0,
      rateLimits: { management: FAST, observability: FAST },
    });
    env = {
      ...sandboxEnv(sb.info),
      CLOUDOPS_OBSERVABILITY_MODE: 'managed',
      CLOUDOPS_MANAGEMENT_RATE_LIMIT: '100000/1s',
      CLOUDOPS_OBSERVABILITY_RATE_LIMIT: '100000/1s',
    };
    root = await mkdtemp(path.join(tmpdir(), `cloudops-flow-${profile}-`));
  });
  afterAll(async () => {
    await sb.close();
    await rm(root, { recursive: true, force: true });
  });
  beforeEach(() => sb.requestLog.clear());

  it('usage errors exit 64, never 2; apply off a terminal needs --auto-approve (0 requests)', async () => {
    const d = await dir('usage', { 'a.yaml': alerted(5) });
    expect((await cli(['plan', '--detailed-exitcode'])).code).toBe(64);
    expect((await cli(['plan', '--dir', d, '--bogus'])).code).toBe(64);
    expect((await cli(['plan', '--dir', d, '--format', 'xml'])).code).toBe(64);
    expect((await cli(['plan', '--dir', d, '--owner', 'has space'])).code).toBe(64);
    const noApprove = await cli(['apply', '--dir', d]);
    expect(noApprove.code).toBe(64);
    expect(noApprove.err).toContain('needs --auto-approve');
    expect(api()).toHaveLength(0);
    const help = await cli(['--help']);
    expect(help.out).toMatch(/Exit codes:\n {2}0 .*\n {2}1 .*\n {2}2 .*\n {2}64 .*\n {2}130 /);
  });

  it('an alert threshold change is a pending change (exit 2) shown old -> new, and apply writes it', async () => {
    const d = await dir('alerts', { 'checkout.yaml': alerted(5) });
    const created = await cli(['apply', '--dir', d, '--auto-approve']);
    expect(created.code).toBe(0);
    expect(created.out).toContain('+ alert "too many errors" on tile "errors"');
    const mine = () =>
      sb.store.state.alerts.filter((a) => (a.message ?? '').includes('[cloudops:d/checkout/'));
    expect(mine()).toHaveLength(1);
    expect(mine()[0]).toMatchObject({ threshold: 5, name: 'too many errors' });

    sb.requestLog.clear();
    const clean = await cli(['plan', '--dir', d, '--detailed-exitcode']);
    expect(clean.code).toBe(0);
    expect(clean.out).toContain('No changes.');

    await writeFile(path.join(d, 'checkout.yaml'), alerted(10));
    const pending = await cli(['plan', '--dir', d, '--detailed-exitcode']);
    expect(pending.code).toBe(2);
    expect(pending.out).toMatch(
      /~ alert "too many errors" on tile "errors" \(\w+\)\n.*threshold: 5 → 10/,
    );
    expect(pending.out).toMatch(
      /^Plan: 0 to create, 1 alert to update, 0 to delete, 1 dashboard unchanged\.$/m,
    );
    const json = await cli(['plan', '--dir', d, '--json']);
    expect(JSON.parse(json.out)).toMatchObject({
      pending: true,
      service: sb.info.serviceIds[0],
      alertCounts: { update: 1 },
    });
    const md = await cli(['plan', '--dir', d, '--format', 'markdown']);
    expect(md.out).toContain(
      `### cloudops dashboards plan for service \`${sb.info.serviceIds[0]}\``,
    );
    expect(md.out).toMatch(/```diff\n[\s\S]*threshold: 5 → 10[\s\S]*```/);

    sb.requestLog.clear();
    const applied = await cli(['apply', '--dir', d, '--auto-approve']);
    expect(applied.code).toBe(0);
    expect(writes().map((e) => e.method)).toEqual(['PUT']);
    expect(mine()).toHaveLength(1);
    expect(mine()[0].threshold).toBe(10);
    expect((await cli(['plan', '--dir', d, '--detailed-exitcode'])).code).toBe(0);
  });

  it('on a terminal apply shows the plan in colour and asks; "no" writes nothing; NO_COLOR has none', async () => {
    const d = await dir('tty', {
      'tty.yaml': 'name: TTY\ntiles:\n  - { name: a, x: 0, y: 0, w: 4, h: 4, markdown: hello }\n',
    });
    const asked: string[] = [];
    const no = await cli(['apply', '--dir', d], {
      tty: true,
      ask: (q) => (asked.push(q), Promise.resolve('no')),
    });
    expect(no.code).toBe(1);
    expect(asked[0]).toContain(`Apply these changes to service ${sb.info.serviceIds[0]}?`);
    expect(no.out).toContain('\x1b[32m[+] create dashboard "TTY"');
    expect(writes()).toHaveLength(0);
    const plain = await cli(['plan', '--dir', d], { tty: true, env: { NO_COLOR: '1' } });
    expect(plain.out).not.toContain('\x1b[');
    const yes = await cli(['apply', '--dir', d], { tty: true, ask: () => Promise.resolve('yes') });
    expect(yes.code).toBe(0);
    expect(sb.store.state.dashboards.filter((x) => x.name === 'TTY')).toHaveLength(1);
  });

  it("owners: another owner's same key is a conflict (exit 1, 0 writes); prune spares other owners", async () => {
    const d = await dir('owned', { 'shared.yaml': 'name: Shared\ntiles: []\n' });
    expect((await cli(['apply', '--dir', d, '--auto-approve'])).code).toBe(0);
    sb.requestLog.clear();
    const clash = await cli(['apply', '--dir', d, '--auto-approve', '--owner', 'team-b']);
    expect(clash.code).toBe(1);
    expect(clash.out).toMatch(
      /\[!\] conflict dashboard "Shared".*\n\s+reason: key "shared" is owned by "default"/,
    );
    expect(writes()).toHaveLength(0);

    const other = await dir('team-b', { 'b-only.yaml': 'name: B only\ntiles: []\n' });
    const b = await cli(['apply', '--dir', other, '--auto-approve', '--prune'], {
      env: { CLOUDOPS_DASHBOARDS_OWNER: 'team-b' },
    });
    expect(b.code).toBe(0);
    const names = sb.store.state.dashboards.map((x) => x.name);
    expect(names).toContain('Shared');
    expect(names).toContain('B only');
    expect(sb.store.state.dashboards.find((x) => x.name === 'B only')!.tags).toContain(
      'cloudops@team-b',
    );
    // The default owner prunes its own orphans only, never team-b's.
    const empty = await dir('default-prune', { 'keep.yaml': 'name: Keep\ntiles: []\n' });
    const pruned = await cli(['apply', '--dir', empty, '--auto-approve', '--prune']);
    expect(pruned.code).toBe(0);
    const after = sb.store.state.dashboards.map((x) => x.name);
    expect(after).not.toContain('Shared');
    expect(after).toContain('B only');
  });

  it('--service picks a configured service and the plan names it; --target limits the plan', async () => {
    const [first, second] = sb.info.serviceIds;
    const d = await dir('svc', {
      'one.yaml': 'name: One\ntiles: []\n',
      'two.yaml': 'name: Two\ntiles: []\n',
    });
    const plan = await cli(['plan', '--dir', d, '--service', second, '--target', 'two']);
    expect(plan.code).toBe(0);
    expect(plan.out).toContain(`Service ${second}, owner "default":`);
    expect(plan.out).toContain('[+] create dashboard "Two"');
    expect(plan.out).not.toContain('"One"');
    expect(
      (await cli(['apply', '--dir', d, '--service', second, '--target', 'two', '--auto-approve']))
        .code,
    ).toBe(0);
    const byService = (id: string) =>
      sb.store.state.dashboards.filter((x) => x.serviceId === id).map((x) => x.name);
    expect(byService(second)).toContain('Two');
    expect(byService(first)).not.toContain('Two');
    expect((await cli(['plan', '--dir', d, '--service', 'nope'])).code).toBe(64);
  });

  it('pull writes files without ids (alerts included); plan --adopt of them shows adoption and no field changes', async () => {
    const pulled = path.join(root, 'pulled');
    const res = await cli(['pull', '--dir', pulled, '--name', 'Ingestion overview']);
    expect(res.code).toBe(0);
    const files = await readdir(pulled);
    expect(files).toEqual(['ingestion-overview.yaml']);
    const text = await readFile(path.join(pulled, files[0]), 'utf8');
    expect(text).not.toMatch(/\bid:/);
    expect(text).toContain('name: Too many errors');
    const plan = await cli(['plan', '--dir', pulled, '--adopt', '--json']);
    const json = JSON.parse(plan.out) as {
      changes: {
        adopted?: boolean;
        fields: object;
        tiles: unknown[];
        alerts: { action: string; adopt?: boolean; changes: unknown[] }[];
      }[];
    };
    expect(json.changes).toHaveLength(1);
    const [c] = json.changes;
    expect(c).toMatchObject({ adopted: true, fields: { marker: true }, tiles: [] });
    expect(c.alerts.length).toBeGreaterThan(0);
    for (const a of c.alerts)
      expect(a).toMatchObject({ action: 'update', adopt: true, changes: [] });
    const before = sb.store.state.alerts.length;
    expect((await cli(['apply', '--dir', pulled, '--adopt', '--auto-approve'])).code).toBe(0);
    expect(sb.store.state.alerts.length).toBe(before);
    expect((await cli(['plan', '--dir', pulled, '--detailed-exitcode'])).code).toBe(0);
  });

  it('Ctrl-C during apply exits 130 and lists what was applied and what was not', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 20; i++) files[`i${i}.yaml`] = `name: Interrupt ${i}\ntiles: []\n`;
    const d = await dir('interrupt', files);
    const controller = new AbortController();
    const watch = setInterval(() => {
      if (writes().length >= 2) controller.abort();
    }, 1);
    const res = await cli(['apply', '--dir', d, '--auto-approve'], { signal: controller.signal });
    clearInterval(watch);
    expect(res.code).toBe(130);
    expect(res.out).toMatch(
      /^Apply incomplete: \d+ dashboards? created, .* \d+ dashboards? not applied\.$/m,
    );
    expect(res.out).toMatch(
      /Interrupted\. Applied: dashboard "Interrupt 0".*\. Not applied: .*dashboard "Interrupt 9"\./,
    );
    const made = sb.store.state.dashboards.filter((x) => x.name.startsWith('Interrupt')).length;
    expect(made).toBeGreaterThan(0);
    expect(made).toBeLessThan(20);
  });
});
