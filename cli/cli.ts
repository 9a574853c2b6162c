import { readFileSync } from 'node:fs';
import { withDebug } from './debug';
import { EXIT } from './exit';
import { reportFailure } from './failure';
import { preflight, topLevelHelp, type CommandEntry } from './help';
import type { CliIO } from './io';
import { assertReachable, type ServiceUrlSetting } from './reach';
import { withSettingsFiles } from './settings-file';
import { didYouMean } from './suggest';

export type { CommandEntry } from './help';
export { EXIT } from './exit';

type Env = CliIO['env'];
const secretsIfUsed = (env: Env): ServiceUrlSetting[] =>
  env.CLOUDOPS_KEY_SECRET_ID || env.CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID
    ? ['AWS_ENDPOINT_URL_SECRETS_MANAGER']
    : [];
/** Dashboards and alerts: `/api/v2` in open-source mode; in managed mode (the default) only the management API. */
const observabilityUrls = (env: Env): ServiceUrlSetting[] => [
  env.CLOUDOPS_OBSERVABILITY_MODE === 'open-source'
    ? 'CLOUDOPS_OBSERVABILITY_URL'
    : 'CLOUDOPS_API_URL',
  ...secretsIfUsed(env),
];

/** Every top-level command; capabilities add theirs here. The demo runs commands through it too. */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'demo',
    summary: 'a guided tour against an in-process sandbox',
    load: async () => (await import('./commands/demo')).demoCommand,
  },
  {
    name: 'sandbox',
    summary: 'serve the local emulator of both APIs and Secrets Manager',
    load: async () => (await import('./commands/sandbox')).sandboxCommand,
    help: async () => (await import('./commands/sandbox')).sandboxHelp,
  },
  {
    name: 'dashboards',
    summary: 'dashboards as code: validate | plan | apply | pull | schema',
    load: async () => (await import('./commands/dashboards')).dashboardsCommand,
    help: async () => (await import('./commands/dashboards-help')).dashboardsHelp,
    reaches: (argv, env) =>
      ['plan', 'apply', 'pull'].includes(argv[0]) ? observabilityUrls(env) : [],
  },
  {
    name: 'alerts',
    summary: 'alerts from events: provision',
    load: async () => (await import('./commands/alerts')).alertsCommand,
    help: async () => (await import('./commands/alerts')).alertsHelp,
    reaches: (argv, env) => (argv[0] === 'provision' ? observabilityUrls(env) : []),
  },
  {
    name: 'pipes',
    summary: 'pipe watchdog: `pipes check` runs one pass',
    load: async () => (await import('./commands/pipes')).pipesCommand,
    help: async () => (await import('./commands/pipes-help')).pipesHelp,
    reaches: (argv, env) =>
      argv[0] === 'check' ? ['CLOUDOPS_API_URL', ...secretsIfUsed(env)] : [],
  },
  {
    name: 'keys',
    summary: 'rotate the management API key in Secrets Manager',
    load: async () => (await import('./commands/keys')).keysCommand,
    help: async () => (await import('./commands/keys')).keysHelp,
    reaches: (argv) =>
      argv[0] === 'rotate' ? ['AWS_ENDPOINT_URL_SECRETS_MANAGER', 'CLOUDOPS_API_URL'] : [],
  },
  {
    name: 'doctor',
    summary:
      'check the settings, both APIs, the key and its expiry, the secrets and their rotation',
    load: async () => (await import('./commands/doctor')).doctorCommand,
    help: async () => (await import('./commands/doctor')).doctorHelp,
  },
  {
    name: 'completion',
    summary: 'print a shell completion script: completion bash | completion zsh',
    // The script lists every command's flags: it reads the registry it is part of.
    load: async () => (await import('./commands/completion')).completionCommand(COMMANDS),
    help: async () => (await import('./commands/completion')).completionHelp,
  },
];

declare const __CLOUDOPS_VERSION__: string | undefined;

/** The package version: inlined by the build; read from package.json when run from source. */
export function cliVersion(): string {
  if (typeof __CLOUDOPS_VERSION__ === 'string') return __CLOUDOPS_VERSION__;
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/** Runs one CLI invocation and returns its exit code (see EXIT). */
export async function runCli(
  rawArgv: string[],
  rawIO: CliIO,
  signal: AbortSignal = new AbortController().signal,
): Promise<number> {
  const { argv: withoutDebug, debug } = withDebug(rawArgv, rawIO.env);
  let argv: string[];
  let io: CliIO;
  try {
    ({ argv, io } = withSettingsFiles(withoutDebug, rawIO));
  } catch (error) {
    rawIO.err(`cloudops: ${(error as Error).message}`);
    return EXIT.usage;
  }
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-V' || name === 'version') {
    io.out(cliVersion());
    return EXIT.ok;
  }
  if (name === 'help' && rest[0] !== undefined) return runCli([...rest, '--help'], io, signal);
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(topLevelHelp(COMMANDS));
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    const known = COMMANDS.map((c) => c.name);
    io.err(
      `cloudops: unknown command "${name}"${didYouMean(name, known)}\n\n${topLevelHelp(COMMANDS)}`,
    );
    return EXIT.usage;
  }
  try {
    const help = await entry.help?.();
    const early = help && preflight(entry, help, rest);
    if (early && 'out' in early) io.out(early.out);
    if (early && 'err' in early) io.err(`cloudops ${name}: ${early.err}`);
    if (early) return early.code;
    const asksHelp = rest.some((a) => a === '--help' || a === '-h');
    if (!asksHelp) await assertReachable(io.env, entry.reaches?.(rest, io.env) ?? [], { signal });
    const command = await entry.load();
    const code = await command.run(rest, io, signal);
    // A command that reported the interrupt as its own failure (a pass cut short) still exits 130.
    return signal.aborted && code !== EXIT.ok ? EXIT.interrupted : code;
  } catch (error) {
    return reportFailure(name, error, { io, signal, debug });
  }
}
