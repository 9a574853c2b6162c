/**
 * A sandbox for the dashboards tests: managed mode, rate limits nobody hits, and
 * `dashboards` run in-process through the CLI with its output captured.
 */
import { cp, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
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
    // The example webhook's URL and header (dashboards/alerting/checkout-alerts.yaml).
    CLOUDOPS_VAR_ALERTS_WEBHOOK_URL: 'https://hooks.example.test/checkout',
    CLOUDOPS_VAR_ALERTS_WEBHOOK_TOKEN: 'Token example-not-secret',
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
 * The example folder as a profile can apply it. The spec snapshot serves no webhooks or saved
 * searches and has none of the August 2026 alert fields (it drops them, so every plan would send
 * them again): for it, a copy with the example dashboards alone, without those fields, their
 * alert on the folder's webhook pointed at the seeded one (`${WEBHOOK_ID}`) instead.
 */
export async function exampleFolder(profile: SandboxProfile): Promise<string> {
  if (profile !== 'spec') return EXAMPLES;
  const dir = await mkdtemp(path.join(tmpdir(), 'dash-spec-'));
  await cp(EXAMPLES, dir, { recursive: true });
  await rm(path.join(dir, 'alerting'), { recursive: true });
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.ya?ml$/.test(entry.name)) continue;
    const file = path.join(entry.parentPath, entry.name);
    await writeFile(file, (await readFile(file, 'utf8')).replace(AUGUST_ALERT_FIELD, ''));
  }
  const file = path.join(dir, 'checkout-service.yaml');
  const text = await readFile(file, 'utf8');
  await writeFile(file, text.replace('webhook: Checkout alerts', "webhookId: '${WEBHOOK_ID}'"));
  return dir;
}
