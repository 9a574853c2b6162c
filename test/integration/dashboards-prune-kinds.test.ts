/**
 * `--prune` reaches every kind through the CLI against the sandbox (`current` profile): with the
 * folder's last webhook and saved-search files removed, the plan still lists those kinds, plans
 * their deletes (counted in the plan's cost) and apply deletes them; without --prune the plan
 * reads one list per kind the folder uses, as before, and only notes the orphans.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { registerSecret } from '../../lib/redact';
import { startDashboardsSandbox, type DashboardsSandbox } from '../support/dashboards-sandbox';

const HOOK_URL = 'https://hooks.example.test/prune/Lm4nB7vC2xZ9';

let ds: DashboardsSandbox;
let dir: string;

beforeAll(async () => {
  registerSecret(HOOK_URL);
  ds = await startDashboardsSandbox('current', () => ({ CLOUDOPS_VAR_HOOK_URL: HOOK_URL }));
  dir = await mkdtemp(path.join(tmpdir(), 'cloudops-prune-kinds-'));
});
afterAll(async () => {
  await ds.sb.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => ds.sb.requestLog.clear());

const write = (file: string, lines: string[]) =>
  writeFile(path.join(dir, file), lines.join('\n') + '\n');
const lists = () =>
  ds
    .api()
    .filter((e) => e.method === 'GET')
    .map((e) => e.path.replace(/.*\/observability\//, ''));
const service = () => ds.sb.info.serviceId;
const hook = () =>
  ds.sb.store.state.webhooks.find((w) => w.serviceId === service() && w.name === 'Orphan hook');
const search = () =>
  (ds.sb.store.state.savedSearches ?? []).find(
    (s) => s.serviceId === service() && s.name === 'Orphan search',
  );

describe('--prune over every kind', () => {
  it('deletes the webhook and saved search whose last files were removed', async () => {
    await write('board.yaml', [
      'name: Prune board',
      'tiles:',
      '  - { name: Notes, x: 0, y: 0, w: 24, h: 2, markdown: notes }',
    ]);
    await write('hook.yaml', [
      'kind: webhook',
      'name: Orphan hook',
      'service: generic',
      'url: ${HOOK_URL}',
    ]);
    await write('search.yaml', [
      'kind: savedSearch',
      'name: Orphan search',
      'source: Logs',
      "where: 'level:error'",
    ]);
    expect((await ds.cli('apply', '--dir', dir, '--owner', 'kinds', '--auto-approve')).code).toBe(
      0,
    );
    expect(hook()).toBeDefined();
    expect(search()).toBeDefined();
    await rm(path.join(dir, 'hook.yaml'));
    await rm(path.join(dir, 'search.yaml'));

    // Without --prune: one list per kind the folder uses (dashboards only), nothing planned.
    ds.sb.requestLog.clear();
    const plain = await ds.cli('plan', '--dir', dir, '--owner', 'kinds', '--json');
    expect(plain.code).toBe(0);
    expect(lists()).toEqual(['dashboards']);
    expect(JSON.parse(plain.out)).toMatchObject({ pending: false });

    // With --prune: every kind is listed, the orphans are planned and counted in the cost.
    ds.sb.requestLog.clear();
    const planned = await ds.cli('plan', '--dir', dir, '--owner', 'kinds', '--prune', '--json');
    expect(planned.code).toBe(0);
    expect(lists().sort()).toEqual(['alerts', 'dashboards', 'saved-searches', 'webhooks']);
    const plan = JSON.parse(planned.out) as {
      pending: boolean;
      objects: { kind: string; action: string; name: string }[];
      cost: { requests: number };
    };
    expect(plan.pending).toBe(true);
    expect(plan.objects.map((o) => [o.kind, o.action, o.name])).toEqual([
      ['webhook', 'delete', 'Orphan hook'],
      ['savedSearch', 'delete', 'Orphan search'],
    ]);
    expect(plan.cost.requests).toBe(2);

    ds.sb.requestLog.clear();
    const applied = await ds.cli(
      'apply',
      '--dir',
      dir,
      '--owner',
      'kinds',
      '--prune',
      '--auto-approve',
    );
    expect({ code: applied.code, err: applied.err }).toEqual({ code: 0, err: '' });
    expect(ds.writes().map((e) => e.method)).toEqual(['DELETE', 'DELETE']);
    expect(hook()).toBeUndefined();
    expect(search()).toBeUndefined();
  });

  it("a further service of the run (the folder's objects go to the first) prunes none of them", async () => {
    const [first, second] = ds.sb.info.serviceIds;
    const other = await mkdtemp(path.join(tmpdir(), 'cloudops-prune-services-'));
    const put = (file: string, lines: string[]) =>
      writeFile(path.join(other, file), lines.join('\n') + '\n');
    try {
      await put('hook.yaml', [
        'kind: webhook',
        'name: Second hook',
        'service: generic',
        'url: ${HOOK_URL}',
      ]);
      // Applied to the second service: its webhook is this owner's there.
      const there = await ds.cli(
        'apply',
        '--dir',
        other,
        '--owner',
        'svc',
        '--service',
        second,
        '--auto-approve',
      );
      expect(there.code).toBe(0);
      await put('board.yaml', [
        'name: Second board',
        `services: ['${second}']`,
        'tiles:',
        '  - { name: Notes, x: 0, y: 0, w: 24, h: 2, markdown: notes }',
      ]);
      // Now the folder's webhook goes to the first service; the second gets the board only.
      const planned = await ds.cli('plan', '--dir', other, '--owner', 'svc', '--prune', '--json');
      expect(planned.code).toBe(0);
      const plans = (
        JSON.parse(planned.out) as {
          plans: { service: string; objects?: { action: string; name: string }[] }[];
        }
      ).plans;
      const objectsOf = (service: string) =>
        (plans.find((p) => p.service === service)?.objects ?? []).map(
          (o) => `${o.action} ${o.name}`,
        );
      expect(objectsOf(first)).toEqual(['create Second hook']);
      expect(objectsOf(second)).toEqual([]);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });
});
