/**
 * Two applies on one owner at once (the CLI's and the Lambda's, the same orchestration) end with
 * one dashboard per key: the run whose creates came later removes the copies it can prove it
 * made (the ids its own creates answered). A dashboard copied by hand, tags included, is never
 * deleted while its key's file exists, prune or not. A source that declares no dashboard never
 * prunes them all without being told to.
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servicesFromEnv, type DashboardServices } from '../../cli/commands/dashboards-services';
import type { ObservabilityBackend } from '../../lib/api';
import {
  directorySource,
  EmptySourcePruneError,
  identityTag,
  loadDashboards,
  planServiceSync,
  syncDashboards,
} from '../../lib/dashboards';
import type { Sandbox } from '../../sandbox/index';
import { startDashboardsSandbox, type DashboardsSandbox } from '../support/dashboards-sandbox';

let ds: DashboardsSandbox;
let sb: Sandbox;
let services: DashboardServices;
let backend: ObservabilityBackend;
let dir: string;

beforeAll(async () => {
  ds = await startDashboardsSandbox('current');
  sb = ds.sb;
  services = servicesFromEnv(ds.env);
  backend = services.backendFor(services.defaultService);
  dir = await mkdtemp(path.join(tmpdir(), 'cloudops-concurrent-'));
  for (const key of ['alpha', 'beta'])
    await writeFile(
      path.join(dir, `${key}.yaml`),
      `name: ${key}\ntiles:\n  - { name: notes, x: 0, y: 0, w: 6, h: 2, markdown: "${key}" }\n`,
    );
});
afterAll(async () => {
  services.close();
  await sb.close();
  await rm(dir, { recursive: true, force: true });
});

const owned = (key: string) =>
  sb.store.state.dashboards.filter((d) => d.tags.includes(identityTag(key)));

describe('concurrent applies on one owner converge', () => {
  it('a run that planned before another created the same keys removes its own copies after creating', async () => {
    const desired = await loadDashboards(directorySource(dir));
    // The Lambda's run plans (nothing exists yet)...
    const lambda = await planServiceSync(desired, { backend });
    expect(lambda.plan.counts.create).toBe(2);
    // ...while the CLI's run plans and applies the same files.
    const cli = await syncDashboards({ source: directorySource(dir), backend, mode: 'apply' });
    expect(cli.apply!.ok).toBe(true);
    const first = ['alpha', 'beta'].map((k) => owned(k).map((d) => d.id));
    // The service's ids grow with the second they are made in.
    await sleep(1_100);
    const { result } = await lambda.apply();

    expect(result.ok).toBe(true);
    expect(result.results.map((r) => [r.key, r.status])).toEqual([
      ['alpha', 'deleted'],
      ['beta', 'deleted'],
    ]);
    expect(result.results[0].message).toContain('another apply created "alpha" first');
    expect(['alpha', 'beta'].map((k) => owned(k).map((d) => d.id))).toEqual(first);

    const again = await syncDashboards({ source: directorySource(dir), backend, mode: 'plan' });
    expect(again.plan.pending).toBe(false);
    expect(again.plan.notes).toEqual([]);
  });

  it('a copy made by hand with the same tags survives prune while the file exists, with a note', async () => {
    const [original] = owned('alpha');
    const copy = await backend.createDashboard({
      name: 'alpha (copy)',
      tags: original.tags,
      tiles: [],
    });
    const pruned = await syncDashboards({
      source: directorySource(dir),
      backend,
      mode: 'apply',
      prune: true,
    });
    expect(pruned.apply!.ok).toBe(true);
    expect(owned('alpha').map((d) => d.id)).toEqual([original.id, copy.id]);
    expect(pruned.plan.notes).toEqual([
      `dashboard "alpha (copy)" (${copy.id}) carries the key "alpha" too (kept: ${original.id}); not deleted while its file exists: delete it by hand if it is a copy`,
    ]);
  });
});

describe('prune over a source that declares no dashboard', () => {
  it('is refused before any write; allowDeleteAll deletes them', async () => {
    const before = sb.store.state.dashboards.filter((d) => d.tags.includes('cloudops')).length;
    expect(before).toBeGreaterThan(0);
    // Every file now names another service: this one's source declares nothing.
    for (const file of await readdir(dir))
      await writeFile(
        path.join(dir, file),
        `services: ["00000000-0000-4000-8000-000000000000"]\nname: gone\ntiles: []\n`,
      );
    const run = (allowDeleteAll: boolean) =>
      syncDashboards({
        source: directorySource(dir),
        backend,
        mode: 'apply',
        service: services.defaultService,
        prune: true,
        allowDeleteAll,
      });
    sb.requestLog.clear();
    const refused = await run(false).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(EmptySourcePruneError);
    expect((refused as Error).message).toContain(
      `--prune would delete all 3 dashboard(s) of owner "default"; refused`,
    );
    expect(sb.requestLog.entries().filter((e) => e.method !== 'GET')).toEqual([]);
    expect(sb.store.state.dashboards.filter((d) => d.tags.includes('cloudops'))).toHaveLength(
      before,
    );

    const allowed = await run(true);
    expect(allowed.apply!.ok).toBe(true);
    expect(sb.store.state.dashboards.filter((d) => d.tags.includes('cloudops'))).toEqual([]);
  });
});

describe('the default owner', () => {
  it('an apply that prunes as "default" warns that other deployments on it prune each other', async () => {
    const cli = (...argv: string[]) => ds.cli(...argv);
    const shared = await cli('plan', '--dir', dir, '--prune');
    expect(shared.err).toContain('warning: pruning as owner "default": every deployment');
    expect((await cli('plan', '--dir', dir, '--prune', '--owner', 'team-a')).err).not.toContain(
      'warning',
    );
    expect((await cli('plan', '--dir', dir)).err).not.toContain('warning');
  });
});
