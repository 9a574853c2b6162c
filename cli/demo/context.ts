import type { Clients } from '../../lib/clients';
import type { Sandbox } from '../../sandbox';
import { dispatch } from '../dispatch';
import { CliFailure } from '../failure';
import type { CliIO } from '../io';
import { SERVICE_COMMANDS } from '../registry';

/** What every demo step gets: the running sandbox, clients wired to it, and the output. */
export interface DemoContext {
  sandbox: Sandbox;
  clients: Clients;
  /** The env a CLI command needs to reach this sandbox. */
  env: Record<string, string>;
  io: CliIO;
  signal: AbortSignal;
}

export interface DemoStep {
  title: string;
  run(ctx: DemoContext): Promise<void>;
}

/** Small output helpers so every step reads the same. */
export const say = {
  section: (io: CliIO, title: string) => io.out(`\n▸ ${title}`),
  line: (io: CliIO, text: string) => io.out(`  ${text}`),
  ok: (io: CliIO, text: string) => io.out(`  ✓ ${text}`),
  table: (io: CliIO, rows: string[][]) => {
    const widths = rows[0].map((_, col) => Math.max(...rows.map((row) => (row[col] ?? '').length)));
    for (const row of rows)
      io.out(`  ${row.map((cell, col) => cell.padEnd(widths[col])).join('  ')}`.trimEnd());
  },
};

/** Fails the demo loudly when something it shows did not hold. */
export function expectThat(condition: boolean, what: string): asserts condition {
  if (!condition) throw new CliFailure(`demo check failed: ${what}`);
}

/**
 * Runs `cloudops <argv>` inside the demo through the same command entries and dispatcher a user's
 * command line goes through, with the sandbox's env; its output is shown indented under the step.
 */
export async function runCommand(
  ctx: DemoContext,
  argv: string[],
  env: Record<string, string> = {},
): Promise<number> {
  const indent = (text: string) =>
    text
      .replace(/\n$/, '')
      .split('\n')
      .map((line) => `    ${line}`)
      .join('\n');
  const io: CliIO = {
    out: (text) => ctx.io.out(indent(text)),
    err: (text) => ctx.io.out(indent(text)),
    env: { ...ctx.env, ...env },
    isTTY: false,
    stdinIsTTY: false,
  };
  return dispatch(SERVICE_COMMANDS, argv, io, ctx.signal);
}

/** Requests the sandbox logged while `work` ran. */
export async function countRequests<T>(
  ctx: DemoContext,
  work: () => Promise<T>,
): Promise<{ result: T; requests: { method: string; status: number }[] }> {
  const before = ctx.sandbox.requestLog.entries().length;
  const result = await work();
  const requests = ctx.sandbox.requestLog.entries().slice(before);
  return { result, requests };
}
