/**
 * A sandbox for the dashboards tests: managed mode, rate limits nobody hits, and
 * `dashboards` run in-process through the CLI with its output captured.
 */
import { cp, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dashboardsCommand } from '../../cli/commands/dashboards';
import { sandboxEnv } from '../../cli/connect';
import type { CliIO } from '../../cli/io';
import type { Sandbox, SandboxProfile } from '../../sandbox/index';
import { startTestSandbox } from './sandbox';

export interface DashboardsSandbox {
  sb: Sandbox;
  env: Record<string, string>;
  /** `cloudops dashboards <argv>`, off a terminal. */
  cli(...argv: string[]): Promise<{ code: number; out: string; err: string }>;
  /** Requests to the management and observability APIs, from the sandbox's log. */
  api(): ReturnType<Sandbox['requestLog']['entries']>;
  /** Of those, the writes: the dry-run validate is a POST that writes nothing. */
  writes(): ReturnType<Sandbox['requestLog']['entries']>;
}

export async function startDashboardsSandbox(
  profile: SandboxProfile,
  extraEnv: (sb: Sandbox) => Record<string, string> = () => ({}),
): Promise<DashboardsSandbox> {
  const sb = await startTestSandbox({ profile });
  const env = {
    ...sandboxEnv(sb.info),
    CLOUDOPS_OBSERVABILITY_MODE: 'managed',
    CLOUDOPS_MANAGEMENT_RATE_LIMIT: '100000/1s',
    CLOUDOPS_OBSERVABILITY_RATE_LIMIT: '100000/1s',
    ...extraEnv(sb),
  };
  const api = () =>
    sb.requestLog
      .entries()
      .filter((e) => e.surface === 'management' || e.surface === 'observability');
  return {
    sb,
    env,
    api,
    writes: () =>
      api().filter((e) => e.method !== 'GET' && !e.path.endsWith('/dashboards/validate')),
    async cli(...argv) {
      let out = '';
      let err = '';
      const io: CliIO = {
        out: (t) => void (out += t + '\n'),
        err: (t) => void (err += t + '\n'),
        env,
        isTTY: false,
      };
      const code = await dashboardsCommand.runWith(argv, io, new AbortController().signal);
      return { code, out, err };
    },
  };
}

const EXAMPLES = path.join(import.meta.dirname, '../../dashboards');
const AUGUST_ALERT_FIELD =
  /^\s*(numConsecutiveWindows|scheduleOffsetMinutes|scheduleStartAt):.*\n/gm;

/**
 * The example folder as a profile can apply it. The spec snapshot's service has none of the
 * August 2026 alert fields (it drops them, so every plan would send them again): for it, a copy
 * without them.
 */
export async function exampleFolder(profile: SandboxProfile): Promise<string> {
  if (profile !== 'spec') return EXAMPLES;
  const dir = await mkdtemp(path.join(tmpdir(), 'dash-spec-'));
  await cp(EXAMPLES, dir, { recursive: true });
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.ya?ml$/.test(entry.name)) continue;
    const file = path.join(entry.parentPath, entry.name);
    await writeFile(file, (await readFile(file, 'utf8')).replace(AUGUST_ALERT_FIELD, ''));
  }
  return dir;
}
