/** Dashboards as code: plan, apply, a no-op re-apply, and a one-tile change that keeps tile ids. */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EXAMPLE_WEBHOOK_VARS } from '../connect';
import {
  countRequests,
  expectThat,
  runCommand,
  say,
  type DemoContext,
  type DemoStep,
} from './context';

const EXAMPLES = path.resolve(import.meta.dirname, '../../dashboards');
const CHANGED_FILE = 'checkout-service.yaml';

/** A scratch copy of the example files, so the demo can edit one without touching the repo. */
let workDir: string | undefined;
function dashboardsDir(): string {
  if (!workDir) {
    workDir = mkdtempSync(path.join(tmpdir(), 'cloudops-demo-dashboards-'));
    cpSync(EXAMPLES, workDir, { recursive: true });
    process.once('exit', () => rmSync(workDir!, { recursive: true, force: true }));
  }
  return workDir;
}

function varsFor(ctx: DemoContext): Record<string, string> {
  return {
    CLOUDOPS_SERVICE_ID: ctx.sandbox.info.serviceId,
    CLOUDOPS_VAR_WEBHOOK_ID: ctx.sandbox.info.webhookId,
    ...EXAMPLE_WEBHOOK_VARS,
  };
}

async function tileIds(ctx: DemoContext): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  const boards = await ctx.clients.requireManagement().listDashboards(ctx.sandbox.info.serviceId);
  for (const board of boards)
    for (const tile of board.tiles) ids.set(`${board.name} / ${tile.name}`, tile.id);
  return ids;
}

const planStep: DemoStep = {
  title: `Dashboards from a repo: plan the files in dashboards/ (validated before any write)`,
  async run(ctx) {
    const code = await runCommand(
      ctx,
      ['dashboards', 'plan', '--dir', dashboardsDir(), '--detailed-exitcode'],
      varsFor(ctx),
    );
    expectThat(code === 2, 'plan reports pending changes (exit 2 with --detailed-exitcode)');
    say.ok(ctx.io, 'exit code 2: changes pending (what a pull-request check would see)');
  },
};

const applyStep: DemoStep = {
  title: 'Apply, then apply again: an unchanged dashboard costs no write',
  async run(ctx) {
    const first = await runCommand(
      ctx,
      ['dashboards', 'apply', '--auto-approve', '--dir', dashboardsDir()],
      varsFor(ctx),
    );
    expectThat(first === 0, 'the first apply succeeded');
    const { result: again, requests } = await countRequests(ctx, () =>
      runCommand(
        ctx,
        ['dashboards', 'apply', '--auto-approve', '--dir', dashboardsDir()],
        varsFor(ctx),
      ),
    );
    expectThat(again === 0, 'the re-apply succeeded');
    const writes = requests.filter((r) => r.method !== 'GET').length;
    expectThat(writes === 0, 'the re-apply wrote nothing');
    say.ok(ctx.io, `re-apply: ${requests.length} request (the list), ${writes} writes`);
  },
};

async function cloudopsAlerts(ctx: DemoContext) {
  const alerts = await ctx.clients.requireManagement().listAlerts(ctx.sandbox.info.serviceId);
  return alerts.filter((a) => a.message?.includes('[cloudops:'));
}

/** Apply (a no-op now), write its `Dashboard Synced` events, and provision the declared alerts. */
async function syncAndProvision(ctx: DemoContext): Promise<void> {
  const events = path.join(dashboardsDir(), '.events.json');
  const applied = await runCommand(
    ctx,
    ['dashboards', 'apply', '--auto-approve', '--dir', dashboardsDir(), '--events', events],
    varsFor(ctx),
  );
  expectThat(applied === 0, 'the sync succeeded');
  const provisioned = await runCommand(
    ctx,
    [
      'alerts',
      'provision',
      '--file',
      events,
      '--state-file',
      path.join(dashboardsDir(), '.alerts-versions.json'),
    ],
    varsFor(ctx),
  );
  expectThat(provisioned === 0, 'the alerts were provisioned');
}

const alertsStep: DemoStep = {
  title: 'Alerts declared on tiles: provisioned from the sync events, exactly once',
  async run(ctx) {
    await syncAndProvision(ctx);
    const first = await cloudopsAlerts(ctx);
    expectThat(first.length > 0, 'the declared alert exists');
    say.ok(ctx.io, `alert "${first[0].name}" (id ${first[0].id}) watches its tile`);
    const { requests } = await countRequests(ctx, () => syncAndProvision(ctx));
    const again = await cloudopsAlerts(ctx);
    const writes = requests.filter((r) => r.method !== 'GET').length;
    expectThat(
      again.length === first.length && again[0].id === first[0].id,
      'the re-sync kept the alert',
    );
    expectThat(writes === 0, 'the re-sync wrote nothing');
    say.ok(
      ctx.io,
      `re-sync + re-provision: same alert id, ${requests.length} reads, ${writes} writes`,
    );
  },
};

const changeStep: DemoStep = {
  title: 'Change one tile in a file: one re-read, one write, every tile id kept',
  async run(ctx) {
    const file = path.join(dashboardsDir(), CHANGED_FILE);
    const text = readFileSync(file, 'utf8');
    const edited = text.replace(
      "where: 'service:checkout level:error'",
      "where: 'service:checkout level:(error OR fatal)'",
    );
    expectThat(edited !== text, `the demo found the tile filter to edit in ${CHANGED_FILE}`);
    writeFileSync(file, edited);
    const before = await tileIds(ctx);
    const { result: code, requests } = await countRequests(ctx, () =>
      runCommand(
        ctx,
        ['dashboards', 'apply', '--auto-approve', '--dir', dashboardsDir()],
        varsFor(ctx),
      ),
    );
    expectThat(code === 0, 'the one-tile change applied');
    const after = await tileIds(ctx);
    const changed = [...before].filter(([tile, id]) => after.get(tile) !== id);
    expectThat(changed.length === 0, 'no tile id changed');
    const alerts = await cloudopsAlerts(ctx);
    expectThat(alerts.length > 0, 'the alert on the changed tile survived');
    say.ok(
      ctx.io,
      `${requests.map((r) => r.method).join(' + ')}; ${before.size} tile ids before, ${changed.length} changed after; alert ${alerts[0].id} still watching`,
    );
  },
};

export const dashboardSteps: DemoStep[] = [planStep, applyStep, alertsStep, changeStep];
