/**
 * Dashboards as code against the sandbox over HTTP, counting requests from its request log
 * (issue 4 acceptance). Managed mode: list/create/get/delete through the management API,
 * PUT through /api/v2, as the real service splits them.
 */
import { mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { dashboardsCommand } from '../../cli/commands/dashboards';
import { servicesFromEnv, type DashboardServices } from '../../cli/commands/dashboards-services';
import type { CliIO } from '../../cli/io';
import type { ObservabilityBackend } from '../../lib/api';
import {
  directorySource,
  loadDashboards,
  planDashboards,
  renderPlan,
  syncDashboards,
  type SyncOptions,
} from '../../lib/dashboards';
import { sandboxEnv } from '../../cli/connect';
import { createLogger } from '../../lib/log';
import { startSandbox, type Sandbox } from '../../sandbox/index';

const captured = createLogger({ level: 'debug', fields: { test: 'dashboards' } });
let sb: Sandbox;
let dir: string;
let env: Record<string, string>;
let services: DashboardServices;
let backend: ObservabilityBackend;

const FAST = { limit: 100_000, windowMs: 1_000 };

function tileYaml(i: number, h = 4): string {
  return `  - name: tile ${i}\n    x: ${(i % 2) * 12}\n    y: ${Math.floor(i / 2) * 8}\n    w: 12\n    h: ${h}\n    series:\n      - { type: time, dataSource: events, aggFn: count, where: "svc:s${i}" }\n`;
}
function dashboardYaml(n: number, opts: { h?: number; skipTile?: number } = {}): string {
  let tiles = '';
  for (let i = 0; i < 8; i++)
    if (i !== opts.skipTile) tiles += tileYaml(i, i === 3 ? (opts.h ?? 4) : 4);
  return `name: Service ${n}\ntags: [team-${n % 3}]\ntiles:\n${tiles}`;
}
const file = (n: number) => path.join(dir, `svc-${String(n).padStart(2, '0')}.yaml`);

const api = () =>
  sb.requestLog
    .entries()
    .filter((e) => e.surface === 'management' || e.surface === 'observability');
// The dry-run validate is a POST that writes nothing.
const isValidate = (e: { path: string }) => e.path.endsWith('/dashboards/validate');
const writes = () => api().filter((e) => e.method !== 'GET' && !isValidate(e));
const sync = (o: Partial<SyncOptions> = {}) =>
  syncDashboards({ source: directorySource(dir), backend, mode: 'apply', ...o });
const allTileIds = () =>
  new Map(
    sb.store.state.dashboards.flatMap((d) => d.tiles.map((t) => [`${d.id}/${t.name}`, t.id])),
  );

function captureIO(): CliIO & { stdout: string[]; stderr: string[] } {
  const io = {
    stdout: [] as string[],
    stderr: [] as string[],
    out: (t: string) => void io.stdout.push(t),
    err: (t: string) => void io.stderr.push(t),
    env,
    isTTY: false,
  };
  return io;
}
const cli = async (...argv: string[]) => {
  const io = captureIO();
  const code = await dashboardsCommand.run(argv, io, new AbortController().signal);
  const out = io.stdout.join('\n');
  const err = io.stderr.join('\n');
  // Into the captured log, so the leak scan checks what the CLI printed.
  captured.debug('cli output', { argv: argv.join(' '), out, err });
  return { code, out, err };
};

beforeAll(async () => {
  sb = await startSandbox({
    profile: 'spec',
    port: 0,
    rateLimits: { management: FAST, observability: FAST },
  });
  env = {
    ...sandboxEnv(sb.info),
    CLOUDOPS_OBSERVABILITY_MODE: 'managed',
    CLOUDOPS_MANAGEMENT_RATE_LIMIT: '100000/1s',
    CLOUDOPS_OBSERVABILITY_RATE_LIMIT: '100000/1s',
  };
  services = servicesFromEnv(env);
  backend = services.backendFor(services.defaultService);
  dir = await mkdtemp(path.join(tmpdir(), 'cloudops-dash-'));
  for (let n = 0; n < 50; n++) await writeFile(file(n), dashboardYaml(n));
});
afterAll(async () => {
  services.close();
  await sb.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => sb.requestLog.clear());

describe('dashboards sync against the sandbox', () => {
  it('applies 50 dashboards x 8 tiles; re-apply costs exactly 1 request and 0 writes', async () => {
    const first = await sync();
    expect(first.apply!.ok).toBe(true);
    expect(first.plan.counts).toMatchObject({ create: 50 });
    // 1 list, 1 dry run (this profile cannot validate: asked once), 50 creates, and 1 list
    // after them that finds what a concurrent apply created too.
    expect(api().filter(isValidate)).toHaveLength(1);
    expect(first.plan.notes.join('\n')).toContain('the service could not validate');
    expect(api()).toHaveLength(53);
    expect(sb.store.state.dashboards.filter((d) => d.tags.includes('cloudops'))).toHaveLength(50);

    sb.requestLog.clear();
    const again = await sync();
    expect(again.plan.pending).toBe(false);
    expect(
      again.apply!.results.every((r) => r.status === 'unchanged' && r.tiles.length === 8),
    ).toBe(true);
    expect(api().map((e) => `${e.method} ${e.surface}`)).toEqual(['GET management']);
    expect(writes()).toHaveLength(0);
  });

  it('one changed tile: 1 list + 1 write (no re-read), and every other tile id is unchanged', async () => {
    const before = allTileIds();
    await writeFile(file(7), dashboardYaml(7, { h: 6 }));
    const { plan, apply } = await sync();
    expect(plan.counts).toMatchObject({ update: 1, unchanged: 49 });
    expect(plan.changes.find((c) => c.action === 'update')!.tiles).toEqual([
      {
        kind: 'changed',
        name: 'tile 3',
        id: expect.any(String) as string,
        fields: ['h'],
        changes: [{ path: 'h', from: 4, to: 6 }],
      },
    ]);
    const calls = api().map((e) => `${e.method} ${e.surface}`);
    expect(calls).toEqual(['GET management', 'POST management', 'PUT management']);
    expect(apply!.ok).toBe(true);
    expect(allTileIds()).toEqual(before);
  });

  it('an alert on a kept tile survives 10 syncs; the plan warns before its tile is removed', async () => {
    const d = sb.store.state.dashboards.find((x) => x.name === 'Service 9')!;
    const kept = d.tiles.find((t) => t.name === 'tile 0')!;
    const alert = await backend.createAlert({
      name: 'svc 9 errors',
      dashboardId: d.id,
      tileId: kept.id,
      threshold: 5,
      interval: '5m',
      source: 'tile',
      thresholdType: 'above',
      channel: { type: 'webhook', webhookId: sb.info.webhookId },
    });
    for (let i = 0; i < 10; i++) {
      // Every sync rewrites this dashboard (another tile changes), so the PUT really happens.
      await writeFile(file(9), dashboardYaml(9, { h: 4 + (i % 3) + 1 }));
      const { apply } = await sync();
      expect(apply!.results.find((r) => r.name === 'Service 9')!.status).toBe('updated');
    }
    expect(writes().filter((e) => e.method === 'PUT')).toHaveLength(10);
    expect((await backend.getAlert(alert.id)).tileId).toBe(kept.id);

    await writeFile(file(9), dashboardYaml(9, { skipTile: 0 }));
    const desired = await loadDashboards(directorySource(dir));
    const plan = await planDashboards(desired, backend);
    const change = plan.changes.find((c) => c.name === 'Service 9')!;
    expect(change.alertsDeleted).toEqual([
      { id: alert.id, name: 'svc 9 errors', tileName: 'tile 0' },
    ]);
    expect(renderPlan(plan)).toMatch(
      /- tile "tile 0" removed\n.*! WARNING: removing this tile deletes 1 alert\(s\): "svc 9 errors"/,
    );
    await writeFile(file(9), dashboardYaml(9));
    await sync();
    expect((await backend.getAlert(alert.id)).id).toBe(alert.id);
  });

  it('prunes only an owned dashboard whose file is gone, only with prune; hand-made same-name stays', async () => {
    const handMade = await backend.createDashboard({
      name: 'Service 3',
      tags: ['by-hand'],
      tiles: [],
    });
    await unlink(file(49));
    sb.requestLog.clear();

    const noPrune = await sync();
    expect(noPrune.plan.counts).toMatchObject({ delete: 0, create: 0, update: 0 });
    expect(noPrune.plan.notes.join('\n')).toMatch(
      /owned dashboard "Service 49" .* has no file; --prune deletes it/,
    );
    expect(writes()).toHaveLength(0);

    sb.requestLog.clear();
    const pruned = await sync({ prune: true });
    expect(pruned.apply!.ok).toBe(true);
    expect(writes().map((e) => e.method)).toEqual(['DELETE']);
    const names = sb.store.state.dashboards.map((d) => d.name);
    expect(names).not.toContain('Service 49');
    expect(sb.store.state.dashboards.find((d) => d.id === handMade.id)).toMatchObject({
      name: 'Service 3',
      tags: ['by-hand'],
    });
    await writeFile(file(49), dashboardYaml(49));
    await sync();
  });

  it('a directory with several bad files: exit 1, every error with file:line and path, 0 requests', async () => {
    const bad = await mkdtemp(path.join(tmpdir(), 'cloudops-bad-'));
    try {
      await writeFile(path.join(bad, 'good.yaml'), dashboardYaml(1));
      await writeFile(
        path.join(bad, 'grid.yaml'),
        'name: G\ntiles:\n  - { name: a, x: 20, y: 0, w: 8, h: 1 }\n',
      );
      await writeFile(
        path.join(bad, 'types.json'),
        '{\n  "name": "T",\n  "tiles": [{"name": "a", "x": 0, "y": 0, "w": 1, "h": 1,\n    "series": [{"type": "pie"}]}]\n}',
      );
      await writeFile(path.join(bad, 'syntax.yaml'), 'name: [unclosed\n');
      const { code, err } = await cli('apply', '--dir', bad, '--prune', '--auto-approve');
      expect(code).toBe(1);
      expect(err).toContain('grid.yaml:3:32 tiles[0].w: x + w must be <= 24');
      expect(err).toContain('types.json:4:25 tiles[0].series[0].type: Invalid option');
      expect(err).toMatch(/syntax\.yaml:\d+:\d+ YAML syntax/);
      expect(api()).toHaveLength(0);
    } finally {
      await rm(bad, { recursive: true, force: true });
    }
  });

  it('a saved plan whose dashboard was edited since is refused with 0 writes; unedited it applies exactly', async () => {
    await writeFile(file(1), dashboardYaml(1, { h: 7 }));
    await writeFile(file(2), dashboardYaml(2, { h: 7 }));
    const planFile = path.join(dir, '..', `plan-${path.basename(dir)}.json`);
    const planned = await cli('plan', '--dir', dir, '--out', planFile);
    expect(planned.code).toBe(0);
    expect(planned.out).toContain(`Saved the plan to ${planFile}`);
    const target = sb.store.state.dashboards.find((d) => d.name === 'Service 1')!;
    // Someone renames it in the UI after the plan was made.
    await backend.updateDashboard(target.id, {
      name: 'Service 1 (edited by hand)',
      tiles: target.tiles,
    });
    sb.requestLog.clear();
    const refused = await cli('apply', planFile);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/"Service 1" \(.*\): edited since the plan/);
    expect(refused.err).toContain('nothing was applied');
    expect(writes()).toHaveLength(0);
    expect(api()).toHaveLength(1);
    expect(sb.store.state.dashboards.find((d) => d.id === target.id)!.name).toBe(
      'Service 1 (edited by hand)',
    );

    const fresh = await cli('plan', '--dir', dir, '--out', planFile);
    expect(fresh.out).toMatch(/~ name: "Service 1 \(edited by hand\)" → "Service 1"/);
    sb.requestLog.clear();
    const applied = await cli('apply', planFile);
    expect(applied.code).toBe(0);
    expect(writes().map((e) => e.method)).toEqual(['PUT', 'PUT']);
    await unlink(planFile);
  });

  it('CLI: plan --detailed-exitcode exits 2 with pending changes and 0 when in sync; --json parses', async () => {
    await writeFile(file(1), dashboardYaml(1, { h: 5 }));
    const pending = await cli('plan', '--dir', dir, '--detailed-exitcode');
    expect(pending.code).toBe(2);
    expect(pending.out).toMatch(/\[~\] update dashboard "Service 1"/);
    const applied = await cli('apply', '--dir', dir, '--json', '--auto-approve');
    expect(applied.code).toBe(0);
    expect((JSON.parse(applied.out) as { ok: boolean }).ok).toBe(true);
    sb.requestLog.clear();
    const clean = await cli('plan', '--dir', dir, '--detailed-exitcode', '--json');
    expect(clean.code).toBe(0);
    expect(JSON.parse(clean.out)).toMatchObject({ pending: false, counts: { unchanged: 50 } });
    expect(api()).toHaveLength(1);
    const schema = await cli('schema');
    // One schema for every kind of file the folder holds.
    const parsed = JSON.parse(schema.out) as { title: string; oneOf: { title: string }[] };
    expect(parsed.title).toBe('cloudops dashboards folder file');
    expect(parsed.oneOf.map((k) => k.title)).toEqual(['dashboard', 'webhook', 'savedSearch']);
  });
});

describe.each(['spec', 'current'] as const)(
  'dashboards CLI on a two-service sandbox (profile %s)',
  (profile) => {
    let two: Sandbox;
    let twoEnv: Record<string, string>;
    let root: string;
    const twoApi = () =>
      two.requestLog
        .entries()
        .filter((e) => e.surface === 'management' || e.surface === 'observability');
    const run = async (...argv: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const io: CliIO = {
        out: (t) => void out.push(t),
        err: (t) => void err.push(t),
        env: twoEnv,
        isTTY: false,
      };
      const code = await dashboardsCommand.run(argv, io, new AbortController().signal);
      return { code, out: out.join('\n'), err: err.join('\n') };
    };
    const onService = (service: string, name: string) =>
      two.store.state.dashboards.filter((d) => d.serviceId === service && d.name === name);
    const everywhere = (h: number) =>
      [
        'name: Everywhere',
        'services: ["${STAGING}", "${PRODUCTION}"]',
        'tiles:',
        '  - name: errors',
        '    x: 0',
        '    y: 0',
        '    w: 12',
        `    h: ${h}`,
        '    series:',
        '      - { type: time, source: Logs, aggFn: count, where: "level:error", whereLanguage: lucene, groupBy: [] }',
        '  - { name: notes, x: 12, y: 0, w: 12, h: 4, markdown: "same everywhere" }',
        '',
      ].join('\n');

    beforeAll(async () => {
      two = await startSandbox({
        profile,
        port: 0,
        rateLimits: { management: FAST, observability: FAST },
      });
      const [production, staging] = two.info.serviceIds;
      twoEnv = {
        ...sandboxEnv(two.info),
        CLOUDOPS_OBSERVABILITY_MODE: 'managed',
        CLOUDOPS_MANAGEMENT_RATE_LIMIT: '100000/1s',
        CLOUDOPS_OBSERVABILITY_RATE_LIMIT: '100000/1s',
        CLOUDOPS_VAR_STAGING: staging,
        CLOUDOPS_VAR_PRODUCTION: production,
      };
      root = await mkdtemp(path.join(tmpdir(), `cloudops-services-${profile}-`));
      await writeFile(path.join(root, 'everywhere.yaml'), everywhere(4));
      await writeFile(path.join(root, 'home.yaml'), 'name: Home only\ntiles: []\n');
    });
    afterAll(async () => {
      await two.close();
      await rm(root, { recursive: true, force: true });
    });
    beforeEach(() => two.requestLog.clear());

    it('a file listing two services is applied to each (its own source ids); a re-plan writes nothing', async () => {
      const [production, staging] = two.info.serviceIds;
      const plan = await run('plan', '--dir', root);
      expect(plan.code).toBe(0);
      // One plan per service, each naming its service; the file without `services:` goes to the first.
      expect(plan.out).toContain(`Service ${production}, owner "default":`);
      expect(plan.out).toContain(`Service ${staging}, owner "default":`);
      expect(plan.out.match(/\[\+\] create dashboard "Everywhere"/g)).toHaveLength(2);
      expect(plan.out.match(/\[\+\] create dashboard "Home only"/g)).toHaveLength(1);
      expect(plan.out).not.toContain('0 tile(s)');
      expect(twoApi().filter((e) => e.method !== 'GET' && !isValidate(e))).toHaveLength(0);

      const apply = await run('apply', '--dir', root, '--auto-approve');
      expect(apply.code).toBe(0);
      expect(apply.out).toContain(`Service ${staging}:`);
      for (const service of [production, staging]) {
        const [made] = onService(service, 'Everywhere');
        expect(made).toBeDefined();
        // `source: Logs` resolved in each service's own sources list.
        const logs = two.store.state.sources.find(
          (s) => s.serviceId === service && s.name === 'Logs',
        )!;
        expect(JSON.stringify(made.tiles)).toContain(logs.id);
      }
      expect(onService(production, 'Home only')).toHaveLength(1);
      expect(onService(staging, 'Home only')).toHaveLength(0);

      two.requestLog.clear();
      const again = await run('plan', '--dir', root, '--detailed-exitcode');
      expect(again.code).toBe(0);
      expect(again.out.match(/No changes\./g)).toHaveLength(2);
      expect(twoApi().filter((e) => e.method !== 'GET' && !isValidate(e))).toHaveLength(0);
      // Per service: the dashboard list and the sources list the names need.
      expect(twoApi().filter((e) => /dashboards$/.test(e.path))).toHaveLength(2);
    });

    it('--service runs one service; a saved plan over two services applies both exactly; JSON lists both', async () => {
      const [production, staging] = two.info.serviceIds;
      const only = await run('plan', '--dir', root, '--service', staging);
      expect(only.code).toBe(0);
      expect(only.out).not.toContain(`Service ${production}`);
      expect(only.out).toContain(`Service ${staging}, owner "default":`);
      // Files without `services:` go to the --service service, as before.
      expect(only.out).toContain('[+] create dashboard "Home only"');
      // A target planned on one service only is no "matches nothing" note on the other.
      const targeted = await run('plan', '--dir', root, '--target', 'home');
      expect(targeted.out).toContain(`Service ${staging}, owner "default":`);
      expect(targeted.out).not.toContain('matches no dashboard file');
      expect((await run('plan', '--dir', root, '--target', 'nope')).out).toContain(
        '--target "nope" matches no dashboard file',
      );

      await writeFile(path.join(root, 'everywhere.yaml'), everywhere(6));
      const json = await run('plan', '--dir', root, '--json');
      const parsed = JSON.parse(json.out) as {
        pending: boolean;
        plans: { service: string; counts: { update: number } }[];
      };
      expect(parsed.pending).toBe(true);
      expect(parsed.plans.map((p) => [p.service, p.counts.update])).toEqual([
        [production, 1],
        [staging, 1],
      ]);

      const planFile = path.join(root, '..', `services-${profile}.plan.json`);
      expect((await run('plan', '--dir', root, '--out', planFile)).code).toBe(0);
      const ids = [production, staging].map((s) => onService(s, 'Everywhere')[0].tiles[0].id);
      two.requestLog.clear();
      const applied = await run('apply', planFile);
      expect(applied.code).toBe(0);
      expect(twoApi().filter((e) => e.method !== 'GET' && !isValidate(e))).toHaveLength(2);
      for (const [i, service] of [production, staging].entries()) {
        const [d] = onService(service, 'Everywhere');
        expect(d.tiles[0]).toMatchObject({ id: ids[i], h: 6 });
      }
      await rm(planFile, { force: true });
    });

    it('a listed service that is not configured fails naming file:line, before any request', async () => {
      const bad = path.join(root, '..', `services-bad-${profile}`);
      await rm(bad, { recursive: true, force: true });
      const { mkdir } = await import('node:fs/promises');
      await mkdir(bad);
      await writeFile(
        path.join(bad, 'x.yaml'),
        'name: X\nservices:\n  - ${PRODUCTION}\n  - 0b6f0d37-5a0e-4c3e-9f1e-3a2b1c0d9e8f\n',
      );
      const res = await run('plan', '--dir', bad);
      expect(res.code).toBe(1);
      expect(res.err).toContain(
        'x.yaml:4:5 services[1]: service 0b6f0d37-5a0e-4c3e-9f1e-3a2b1c0d9e8f is not configured',
      );
      expect(twoApi()).toHaveLength(0);
      await rm(bad, { recursive: true, force: true });
    });

    it('a keyed tile renamed without alerts is an update that keeps its tile id (shown as a rename)', async () => {
      const [production] = two.info.serviceIds;
      const keyedDir = path.join(root, '..', `keyed-${profile}`);
      await rm(keyedDir, { recursive: true, force: true });
      const { mkdir } = await import('node:fs/promises');
      await mkdir(keyedDir);
      const keyed = (errors: string, notes: string, h: number) =>
        [
          'name: Keyed',
          'tiles:',
          '  - key: errs',
          `    name: ${errors}`,
          '    x: 0',
          '    y: 0',
          '    w: 12',
          '    h: 4',
          '    series:',
          '      - { type: time, source: Logs, aggFn: count, where: "level:error", whereLanguage: lucene, groupBy: [] }',
          `  - { key: notes, name: ${notes}, x: 12, y: 0, w: 12, h: ${h}, markdown: "read me" }`,
          '',
        ].join('\n');
      const file = path.join(keyedDir, 'keyed.yaml');
      await writeFile(file, keyed('errors', 'notes', 4));
      expect((await run('apply', '--dir', keyedDir, '--auto-approve')).code).toBe(0);
      const tiles = () => onService(production, 'Keyed')[0].tiles.map((t) => [t.name, t.id]);
      const before = tiles();

      // Both renamed; the notes tile also grows.
      await writeFile(file, keyed('Error count', 'Notes for the team', 6));
      const plan = await run('plan', '--dir', keyedDir, '--detailed-exitcode');
      expect(plan.code).toBe(2);
      expect(plan.out).toContain('~ tile "Error count" renamed from "errors" (keeps id');
      expect(plan.out).toContain('~ tile "Notes for the team" renamed from "notes" (keeps id');
      expect(plan.out).not.toMatch(/^\s*[│├└─ ]*[+-] tile/m);
      expect(plan.out).toContain('0 to create, 1 dashboard to update, 0 to delete');

      two.requestLog.clear();
      expect((await run('apply', '--dir', keyedDir, '--auto-approve')).code).toBe(0);
      expect(twoApi().filter((e) => e.method !== 'GET' && !isValidate(e))).toHaveLength(1);
      expect(tiles()).toEqual([
        ['Error count', before[0][1]],
        ['Notes for the team', before[1][1]],
      ]);
      const again = await run('plan', '--dir', keyedDir, '--detailed-exitcode');
      expect(again.code).toBe(0);
      await rm(keyedDir, { recursive: true, force: true });
    });
  },
);
