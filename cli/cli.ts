import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
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
    'Any command takes --env-file FILE: KEY=VALUE lines added to the environment (set variables win).',
  ].join('\n');
}

/**
 * Takes `--env-file FILE` (anywhere, any number of times) out of argv and adds the file's
 * variables to the env; variables already set win, as with dotenv.
 */
export function withEnvFiles(argv: string[], io: CliIO): { argv: string[]; io: CliIO } {
  const rest: string[] = [];
  let env = io.env;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const inline = arg.startsWith('--env-file=') ? arg.slice('--env-file='.length) : undefined;
    if (arg !== '--env-file' && inline === undefined) {
      rest.push(arg);
      continue;
    }
    const file = inline ?? argv[++i];
    if (!file) throw new UsageError('--env-file expects a file name');
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new UsageError(
        `--env-file ${file}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`,
      );
    }
    env = { ...parseEnv(text), ...env };
  }
  return { argv: rest, io: env === io.env ? io : { ...io, env } };
}

/** Runs one CLI invocation and returns its exit code (0 ok, 1 failure, 2 usage). */
export async function runCli(
  rawArgv: string[],
  rawIO: CliIO,
  signal: AbortSignal = new AbortController().signal,
): Promise<number> {
  let argv: string[];
  let io: CliIO;
  try {
    ({ argv, io } = withEnvFiles(rawArgv, rawIO));
  } catch (error) {
    rawIO.err(`cloudops: ${(error as Error).message}`);
    return EXIT.usage;
  }
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
