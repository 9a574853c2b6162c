/**
 * The plan states its cost, and the apply keeps to it: the requests apply makes (counted in the
 * sandbox's request log, after the plan) equal the plan's number, for creates with a tile alert
 * and for an update, an alert change and a prune; the text and markdown say it.
 */
import { mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servicesFromEnv, type DashboardServices } from '../../cli/commands/dashboards-services';
import {
  directorySource,
  loadDashboards,
  planServiceSync,
  planToJson,
  renderPlan,
  renderPlanMarkdown,
} from '../../lib/dashboards';
import type { Sandbox } from '../../sandbox/index';
import { startDashboardsSandbox } from '../support/dashboards-sandbox';

let sb: Sandbox;
let services: DashboardServices;
let dir: string;

beforeAll(async () => {
  const ds = await startDashboardsSandbox('current');
  sb = ds.sb;
  services = servicesFromEnv(ds.env);
  dir = await mkdtemp(path.join(tmpdir(), 'cloudops-cost-'));
});
afterAll(async () => {
  services.close();
  await sb.close();
  await rm(dir, { recursive: true, force: true });
});

const api = () =>
  sb.requestLog
    .entries()
    .filter((e) => e.surface === 'management' || e.surface === 'observability');

function dashboardYaml(n: number, h = 4, threshold?: number): string {
  const alert =
    threshold === undefined
      ? ''
      : `    alerts:\n      - { name: burst, threshold: ${threshold}, thresholdType: above, interval: 5m, channel: { type: webhook, webhookId: "${sb.store.state.seed.webhookId}" } }\n`;
  return (
    `name: Cost ${n}\ntiles:\n  - name: errors\n    x: 0\n    y: 0\n    w: 6\n    h: ${h}\n` +
    `    config: { displayType: line, source: Logs, select: [{ aggFn: count, where: "", whereLanguage: lucene }] }\n` +
    alert
  );
}

/** Plans the folder, then applies it, counting the apply's own requests. */
async function planThenApply(prune = false) {
  const backend = services.backendFor(services.defaultService);
  const desired = await loadDashboards(directorySource(dir), { directory: backend });
  const sync = await planServiceSync(desired, {
    backend,
    prune,
    rateLimit: { limit: 10, windowMs: 10_000 },
  });
  sb.requestLog.clear();
  const { result } = await sync.apply();
  expect(result.ok).toBe(true);
  return { plan: sync.plan, requests: api().length };
}

describe('the plan states its cost and the apply stays within it', () => {
  it('creates with a tile alert: the apply makes exactly the requests the plan stated', async () => {
    await writeFile(path.join(dir, 'a.yaml'), dashboardYaml(1, 4, 50));
    await writeFile(path.join(dir, 'b.yaml'), dashboardYaml(2));
    await writeFile(path.join(dir, 'c.yaml'), dashboardYaml(3));
    const { plan, requests } = await planThenApply();
    // 3 creates, 1 alert, and the list after creates that finds a concurrent apply's copies.
    expect(plan.cost).toMatchObject({ requests: 5, seconds: 0 });
    expect(requests).toBe(plan.cost!.requests);
    expect(renderPlan(plan)).toContain(
      "Apply: 5 request(s), about 0 s at the key's rate limit (10 per 10 s).",
    );
    expect(renderPlanMarkdown(plan)).toContain('Apply: 5 request(s)');
    expect(planToJson(plan)).toMatchObject({ cost: { requests: 5, seconds: 0 } });
  });

  it('an update, an alert change and a prune: again exactly the stated number', async () => {
    await writeFile(path.join(dir, 'a.yaml'), dashboardYaml(1, 4, 70));
    await writeFile(path.join(dir, 'b.yaml'), dashboardYaml(2, 6));
    await unlink(path.join(dir, 'c.yaml'));
    const { plan, requests } = await planThenApply(true);
    expect(plan.counts).toMatchObject({ update: 1, delete: 1, unchanged: 1 });
    expect(plan.alertCounts).toMatchObject({ update: 1 });
    expect(plan.cost!.requests).toBe(3);
    expect(requests).toBe(3);
  });

  it('in sync: no cost line, and 0 requests', async () => {
    const { plan, requests } = await planThenApply(true);
    expect(plan.pending).toBe(false);
    expect(plan.cost!.requests).toBe(0);
    expect(requests).toBe(0);
    expect(renderPlan(plan)).not.toContain('Apply:');
  });
});
