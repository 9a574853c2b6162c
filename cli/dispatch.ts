import { readFileSync } from 'node:fs';
import { withDebug } from './debug';
import { EXIT } from './exit';
import { reportFailure } from './failure';
import { preflight, subcommandOf, topLevelHelp, type CommandEntry } from './help';
import type { CliIO } from './io';
import { assertReachable } from './reach';
import { withSettingsFiles } from './settings-file';
import { didYouMean } from './suggest';

declare const __CLOUDOPS_VERSION__: string | undefined;

/** The package version: inlined by the build; read from package.json when run from source. */
function cliVersion(): string {
  if (typeof __CLOUDOPS_VERSION__ === 'string') return __CLOUDOPS_VERSION__;
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/**
 * Runs one command line against a registry of commands and returns its exit code (see EXIT):
 * settings files and --debug first, then help, version or the named command.
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
  if (name === 'help' && rest[0] !== undefined) {
    return dispatch(commands, [...rest, '--help'], io, signal);
  }
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(topLevelHelp(commands));
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const entry = commands.find((c) => c.name === name);
  if (!entry) {
    const known = commands.map((c) => c.name);
    io.err(
      `cloudops: unknown command "${name}"${didYouMean(name, known)}\n\n${topLevelHelp(commands)}`,
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
    // The subcommand as preflight found it: flags may come before it (`keys --json list`).
    const subcommand = help ? subcommandOf(rest, help) : rest[0];
    if (!asksHelp)
      await assertReachable(io.env, entry.reaches?.(subcommand, io.env) ?? [], { signal });
    const command = await entry.load();
    const code = await command.run(rest, io, signal);
    // A command that reported the interrupt as its own failure (a pass cut short) still exits 130.
    return signal.aborted && code !== EXIT.ok ? EXIT.interrupted : code;
  } catch (error) {
    return reportFailure(name, error, { io, signal, debug });
  }
}
