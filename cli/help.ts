/**
 * The help registry: what each command takes, read by `--help`, by "did you mean" and by shell
 * completion, so the three never disagree. A command's help data is loaded only when needed (the
 * top-level help lists names and summaries only).
 */
import { flagSpellings, formatHelp, UsageError, type CommandSpec, type OptionSpec } from './args';
import type { CliIO, Command } from './io';
import type { ServiceUrlSetting } from './reach';
import { didYouMean } from './suggest';

export type AnySpec = CommandSpec<OptionSpec>;

/** What `--help`, suggestions and completion know of one top-level command. */
export interface CommandHelp {
  /** Subcommands in the order help lists them, each with its own flags (`dashboards plan`). */
  subcommands?: Record<string, AnySpec>;
  /** The command's flags when it takes no subcommand (`sandbox`, `doctor`). */
  spec?: AnySpec;
}

/**
 * A top-level command as the registry knows it: name and summary for `--help`, and the module
 * loaded only when the command runs (the built bin splits each into its own chunk, so
 * `cloudops --help` loads none of them).
 */
export interface CommandEntry {
  name: string;
  summary: string;
  load(): Promise<Command>;
  /** Its subcommands and flags; without it, `--help` is left to the command itself. */
  help?(): Promise<CommandHelp>;
  /** The services a run with these arguments talks to: checked reachable before it starts. */
  reaches?(subcommand: string | undefined, env: CliIO['env']): ServiceUrlSetting[];
}

/** Flags every command takes (cli.ts takes them out of argv before the command sees them). */
export const GLOBAL_FLAGS = {
  settings: 'read settings from FILE: KEY=VALUE lines (variables already set win)',
  debug:
    'on a failure, print the stack trace too, pointing at the .ts sources (or CLOUDOPS_DEBUG=1)',
  help: 'show the help of the command (`cloudops <command> <subcommand> --help`)',
} as const;

export function topLevelHelp(commands: readonly CommandEntry[]): string {
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  return [
    'usage: cloudops <command> [<subcommand>] [options]',
    '',
    'Automation for the cloud management API and the observability API.',
    '',
    'commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)} ${c.summary}`),
    '',
    'Run `cloudops <command> --help` for the subcommands and options of one command.',
    'Any command takes:',
    `  --settings FILE   ${GLOBAL_FLAGS.settings};`,
    '                    `--env-file FILE` also works where Node does not claim it (the installed bin)',
    `  --debug           ${GLOBAL_FLAGS.debug}`,
    '  --version, -V     print the version and exit',
    'Exit codes: 0 ok, 1 failure, 2 changes pending (plan --detailed-exitcode), 64 usage or setup',
    'error, 130 interrupted.',
  ].join('\n');
}

/** A summary's first phrase (up to its first `. ` or `: `), for one line of a list. */
export function firstPhrase(summary: string): string {
  const text = summary.replace(/\s*\n\s*/g, ' ');
  const end = /[.:](\s|$)/.exec(text);
  const phrase = end ? text.slice(0, end.index) : text;
  return phrase.length <= 64 ? phrase : `${phrase.slice(0, phrase.lastIndexOf(' ', 63))} …`;
}

/** `cloudops dashboards --help`: the subcommands, one line each. */
export function commandOverview(entry: CommandEntry, help: CommandHelp): string {
  if (!help.subcommands) return help.spec ? formatHelp(help.spec) : entry.summary;
  const subs = Object.entries(help.subcommands);
  const width = Math.max(...subs.map(([name]) => name.length)) + 2;
  return [
    `usage: cloudops ${entry.name} <subcommand> [options]`,
    '',
    'subcommands:',
    ...subs.map(([name, spec]) => `  ${name.padEnd(width)} ${firstPhrase(spec.summary)}`),
    '',
    `Run \`cloudops ${entry.name} <subcommand> --help\` for its options.`,
  ].join('\n');
}

const isHelpFlag = (arg: string) => arg === '--help' || arg === '-h';

/** Flags of any subcommand that take a value: their values are not subcommand names. */
function valueFlags(help: CommandHelp): Set<string> {
  const specs = [...Object.values(help.subcommands ?? {}), ...(help.spec ? [help.spec] : [])];
  return new Set(
    specs.flatMap((spec) =>
      flagSpellings(spec)
        .filter((s) => s.takesValue)
        .map((s) => s.flag),
    ),
  );
}

/** The first argument that is neither a flag nor a flag's value: the subcommand. */
export function subcommandOf(argv: readonly string[], help: CommandHelp): string | undefined {
  const takesValue = valueFlags(help);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') return argv[i + 1];
    if (!arg.startsWith('-')) return arg;
    if (takesValue.has(arg)) i++;
  }
  return undefined;
}

/** What the registry answers before the command is loaded: help text, or a usage error. */
export type Preflight = { out: string; code: 0 } | { err: string; code: 64 } | undefined;

/**
 * `X --help`, `X help [sub]`, `X sub --help` print the registry's help; `X` alone (when it
 * needs a subcommand) and an unknown subcommand are usage errors naming the ones that exist.
 * Anything else runs the command.
 */
export function preflight(entry: CommandEntry, help: CommandHelp, argv: string[]): Preflight {
  const end = argv.indexOf('--');
  const asksHelp = (end < 0 ? argv : argv.slice(0, end)).some(isHelpFlag) || argv[0] === 'help';
  const subs = help.subcommands;
  if (!subs) return asksHelp && help.spec ? { out: formatHelp(help.spec), code: 0 } : undefined;
  const sub = argv[0] === 'help' ? argv[1] : subcommandOf(argv, help);
  const names = Object.keys(subs);
  if (sub === undefined) {
    if (asksHelp) return { out: commandOverview(entry, help), code: 0 };
    return {
      err: `expected a subcommand: ${names.join(', ')}\n\n${commandOverview(entry, help)}`,
      code: 64,
    };
  }
  const spec = subs[sub];
  if (!spec) {
    throw new UsageError(
      `unknown subcommand "${sub}"${didYouMean(sub, names)}; expected ${listOr(names)}`,
    );
  }
  return asksHelp ? { out: formatHelp(spec), code: 0 } : undefined;
}

/** "validate, plan, apply or pull". */
export function listOr(words: readonly string[]): string {
  return words.length < 2
    ? (words[0] ?? '')
    : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}
