/**
 * The example files in dashboards/ (names of sources, a webhook id variable, series, config and
 * markdown tiles, alerts) apply cleanly to both sandbox profiles through the CLI, and a second
 * apply writes nothing: against `current`, read-back config tiles compare equal to the files'
 * series tiles (issue 15 §2, §3, §9).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../sandbox/index';
import {
  exampleFolder,
  startDashboardsSandbox,
  type DashboardsSandbox,
} from '../support/dashboards-sandbox';

describe.each(['current', 'spec'] as const)('example dashboards on the %s profile', (profile) => {
  let ds: DashboardsSandbox;
  let sb: Sandbox;
  let EXAMPLES: string;

  beforeAll(async () => {
    EXAMPLES = await exampleFolder(profile);
    ds = await startDashboardsSandbox(profile, (s) => ({
      CLOUDOPS_VAR_WEBHOOK_ID: s.store.state.seed.webhookId,
    }));
    sb = ds.sb;
  });
  afterAll(() => sb.close());

  const cli = (...argv: string[]) => ds.cli(...argv);
  // Every write, the dry-run validate included: a run with nothing to change makes none.
  const writes = () => ds.api().filter((e) => e.method !== 'GET');

  it('applies the examples, then a second apply writes nothing', async () => {
    const first = await cli('apply', '--dir', EXAMPLES, '--auto-approve');
    // The output's tail says which dashboard or alert failed, if one did.
    expect({ code: first.code, err: first.err, tail: first.out.slice(-600) }).toMatchObject({
      code: 0,
      err: '',
    });
    const mine = sb.store.state.dashboards.filter((d) => d.tags.includes('cloudops'));
    expect(mine.map((d) => d.name).sort()).toEqual([
      'Checkout service',
      'Ingestion pipes',
      'Platform overview',
    ]);
    const logs = sb.store.state.sources.find(
      (s) => s.name === 'Logs' && s.serviceId === sb.info.serviceId,
    );
    const stored = JSON.stringify(mine);
    // `source: Logs` reached the service as its id; the name never did.
    expect(stored).toContain(logs!.id);
    expect(stored).not.toContain('"source":"Logs"');

    sb.requestLog.clear();
    const again = await cli('apply', '--dir', EXAMPLES, '--auto-approve');
    expect(again.code).toBe(0);
    expect(writes()).toEqual([]);
    const plan = await cli('plan', '--dir', EXAMPLES, '--detailed-exitcode');
    expect(plan.code).toBe(0);
    expect(writes()).toEqual([]);
  });

  it('fails before any write on an unknown source name, naming file, line and the names that exist', async () => {
    const { mkdtemp, writeFile, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const dir = await mkdtemp(path.join(tmpdir(), 'dash-names-'));
    try {
      await writeFile(
        path.join(dir, 'x.yaml'),
        'name: X\ntiles:\n  - name: t\n    x: 0\n    y: 0\n    w: 6\n    h: 4\n    series:\n      - { type: number, source: Nope, aggFn: count, where: "", whereLanguage: lucene }\n',
      );
      sb.requestLog.clear();
      const out = await cli('apply', '--dir', dir, '--auto-approve');
      expect(out.code).toBe(1);
      expect(out.err).toMatch(
        /x\.yaml:9:\d+ tiles\[0\]\.series\[0\]\.source: unknown source "Nope"; they are .*"Logs"/,
      );
      expect(writes()).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
