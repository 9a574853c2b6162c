import { CloudOpsError } from '../lib/errors';
import { redactText } from '../lib/redact';
import { UsageError } from './args';
import { alertsCommand } from './commands/alerts';
import { dashboardsCommand } from './commands/dashboards';
import { demoCommand } from './commands/demo';
import { keysCommand } from './commands/keys';
import { pipesCommand } from './commands/pipes';
import { sandboxCommand } from './commands/sandbox';
import type { CliIO, Command } from './io';

/** Every top-level command; capabilities add theirs here. */
export const COMMANDS: readonly Command[] = [
  demoCommand,
  sandboxCommand,
  dashboardsCommand,
  alertsCommand,
  pipesCommand,
  keysCommand,
];

export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

function topLevelHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length)) + 2;
  return [
    'usage: cloudops <command> [options]',
    '',
    'Automation for the cloud management API and the observability API.',
    '',
    'commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)} ${c.summary}`),
    '',
    'Run `cloudops <command> --help` for the options of one command.',
  ].join('\n');
}

/** Runs one CLI invocation and returns its exit code (0 ok, 1 failure, 2 usage). */
export async function runCli(
  argv: string[],
  io: CliIO,
  signal: AbortSignal = new AbortController().signal,
): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(topLevelHelp());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    io.err(`cloudops: unknown command "${name}"\n\n${topLevelHelp()}`);
    return EXIT.usage;
  }
  try {
    return await command.run(rest, io, signal);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`cloudops ${name}: ${error.message}\nRun \`cloudops ${name} --help\` for usage.`);
      return EXIT.usage;
    }
    const message =
      error instanceof CloudOpsError
        ? `${error.name}: ${error.message}`
        : redactText(error instanceof Error ? (error.stack ?? error.message) : String(error));
    io.err(`cloudops ${name}: ${message}`);
    return EXIT.failure;
  }
}
