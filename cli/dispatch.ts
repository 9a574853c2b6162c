import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { redactText } from '../lib/redact';
import { UsageError } from './args';
import { describeFailure } from './failure';
import type { CliIO } from './io';
import { assertReachable } from './reach';
import type { CommandEntry } from './registry';

const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

declare const __CLOUDOPS_VERSION__: string | undefined;

/** The package version: inlined by the build; read from package.json when run from source. */
function cliVersion(): string {
  if (typeof __CLOUDOPS_VERSION__ === 'string') return __CLOUDOPS_VERSION__;
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

function topLevelHelp(commands: readonly CommandEntry[]): string {
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  return [
    'usage: cloudops <command> [options]',
    '',
    'Automation for the cloud management API and the observability API.',
    '',
    'commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)} ${c.summary}`),
    '',
    'Run `cloudops <command> --help` for the options of one command.',
    'Any command takes:',
    '  --env-file FILE   KEY=VALUE lines added to the environment (variables already set win)',
    '  --debug           on a failure, print the stack trace too (or set CLOUDOPS_DEBUG=1)',
    '  --version, -V     print the version and exit',
  ].join('\n');
}

/**
 * Takes `--env-file FILE` (anywhere, any number of times) out of argv and adds the file's
 * variables to the env; variables already set win, as with dotenv.
 */
function withEnvFiles(argv: string[], io: CliIO): { argv: string[]; io: CliIO } {
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
      const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      const hint =
        code === 'ENOENT'
          ? ' (no such file; `cloudops sandbox --write-env FILE` writes one)'
          : ` (check the file's permissions)`;
      throw new UsageError(`--env-file ${file}: ${code}${hint}`);
    }
    env = { ...parseEnv(text), ...env };
  }
  return { argv: rest, io: env === io.env ? io : { ...io, env } };
}

/** Takes `--debug` out of argv (before `--`); CLOUDOPS_DEBUG=1 does the same. */
function withDebug(argv: string[], env: CliIO['env']): { argv: string[]; debug: boolean } {
  const end = argv.indexOf('--');
  const head = end < 0 ? argv : argv.slice(0, end);
  const rest = head.filter((a) => a !== '--debug');
  const debug = rest.length !== head.length || ['1', 'true'].includes(env.CLOUDOPS_DEBUG ?? '');
  return { argv: end < 0 ? rest : [...rest, ...argv.slice(end)], debug };
}

/**
 * Runs one command line against a registry of commands and returns its exit code (0 ok,
 * 1 failure, 2 usage): env files and --debug first, then help, version or the named command.
 */
export async function dispatch(
  commands: readonly CommandEntry[],
  rawArgv: string[],
  rawIO: CliIO,
  signal: AbortSignal,
): Promise<number> {
  const { argv: withoutDebug, debug } = withDebug(rawArgv, rawIO.env);
  let argv: string[];
  let io: CliIO;
  try {
    ({ argv, io } = withEnvFiles(withoutDebug, rawIO));
  } catch (error) {
    rawIO.err(`cloudops: ${(error as Error).message}`);
    return EXIT.usage;
  }
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-V' || name === 'version') {
    io.out(cliVersion());
    return EXIT.ok;
  }
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(topLevelHelp(commands));
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const entry = commands.find((c) => c.name === name);
  if (!entry) {
    io.err(`cloudops: unknown command "${name}"\n\n${topLevelHelp(commands)}`);
    return EXIT.usage;
  }
  try {
    const asksHelp = rest.some((a) => a === '--help' || a === '-h');
    if (!asksHelp) await assertReachable(io.env, entry.reaches?.(rest, io.env) ?? [], { signal });
    const command = await entry.load();
    return await command.run(rest, io, signal);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`cloudops ${name}: ${error.message}\nRun \`cloudops ${name} --help\` for usage.`);
      return EXIT.usage;
    }
    io.err(`cloudops ${name}: ${describeFailure(error)}`);
    if (debug && error instanceof Error && error.stack) io.err(redactText(error.stack));
    return EXIT.failure;
  }
}
