/**
 * Dashboards as code, requests per `cloudops dashboards apply --dir` over real HTTP against an
 * in-process sandbox (managed mode), counted from the sandbox's request log:
 * - dashboards_noop_requests_n100: 100 dashboards in sync (goal 1: the list);
 * - dashboards_changed_requests_k10_n100: 10 of 100 changed (goal 11: the list + 10 writes, set
 *   before the service's dry-run validate existed; each changed dashboard now also costs its
 *   validate, so the current profile measures 21 — a missed goal, not a new one; a service that
 *   cannot validate is asked once, so the spec profile costs 12).
 * Measured on both sandbox profiles; the figure is the larger count.
 *   npx tsx bench/figures/dashflow.ts
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dashboardsCommand } from '../../cli/commands/dashboards';
import { sandboxEnv } from '../../cli/connect';
import type { CliIO } from '../../cli/io';
import { startSandbox, type SandboxProfile } from '../../sandbox/index';
import type { Figure } from './types';

const N = 100;
const K = 10;
const COMMAND = 'npx tsx bench/figures/dashflow.ts';

function dashboardYaml(n: number, changed: boolean): string {
  let tiles = '';
  for (let i = 0; i < 8; i++) {
    const h = changed && i === 3 ? 6 : 4;
    tiles +=
      `  - name: tile ${i}\n    x: ${(i % 2) * 12}\n    y: ${Math.floor(i / 2) * 8}\n    w: 12\n    h: ${h}\n` +
      `    markdown: "service ${n} tile ${i}"\n`;
  }
  return `name: Flow ${n}\ntags: [bench]\ntiles:\n${tiles}`;
}

async function countsFor(profile: SandboxProfile): Promise<{ noop: number; changed: number }> {
  const fast = { limit: 1_000_000, windowMs: 1_000 };
  const sb = await startSandbox({
    profile,
    port: 0,
    rateLimits: { management: fast, observability: fast },
  });
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-dashflow-'));
  const write = (changed: number) => {
    for (let n = 0; n < N; n++)
      writeFileSync(path.join(dir, `d${n}.yaml`), dashboardYaml(n, n < changed));
  };
  const io: CliIO = {
    out: () => undefined,
    err: () => undefined,
    env: {
      ...sandboxEnv(sb.info),
      CLOUDOPS_OBSERVABILITY_MODE: 'managed',
      CLOUDOPS_MANAGEMENT_RATE_LIMIT: '1000000/1s',
      CLOUDOPS_OBSERVABILITY_RATE_LIMIT: '1000000/1s',
      CLOUDOPS_LOG_LEVEL: 'silent',
    },
    isTTY: false,
  };
  const apply = async () => {
    sb.requestLog.clear();
    const code = await dashboardsCommand.run(
      ['apply', '--dir', dir, '--auto-approve'],
      io,
      new AbortController().signal,
    );
    if (code !== 0) throw new Error(`apply exited ${code}`);
    return sb.requestLog
      .entries()
      .filter((e) => e.surface === 'management' || e.surface === 'observability').length;
  };
  try {
    write(0);
    await apply();
    const noop = await apply();
    write(K);
    const changed = await apply();
    return { noop, changed };
  } finally {
    await sb.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function measure(): Promise<Figure[]> {
  const spec = await countsFor('spec');
  const current = await countsFor('current');
  const note = (key: 'noop' | 'changed') =>
    `apply --dir of ${N} dashboards x 8 tiles over HTTP; profile spec ${spec[key]}, current ${current[key]}`;
  const noop = Math.max(spec.noop, current.noop);
  const changed = Math.max(spec.changed, current.changed);
  return [
    {
      name: 'dashboards_noop_requests_n100',
      value: noop,
      goal: '= 1',
      met: noop === 1,
      command: COMMAND,
      note: note('noop'),
    },
    {
      name: 'dashboards_changed_requests_k10_n100',
      value: changed,
      goal: `= ${1 + K}`,
      met: changed === 1 + K,
      command: COMMAND,
      note: note('changed'),
    },
  ];
}

if (process.argv[1] === import.meta.filename) {
  console.log(JSON.stringify(await measure(), null, 2));
}
