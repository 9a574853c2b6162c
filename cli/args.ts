import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CloudOpsError } from '../lib/errors';
import { didYouMean } from './suggest';

/** A mistake in how the command was called: printed with a pointer to --help, exit code 64. */
export class UsageError extends CloudOpsError {
  override name = 'UsageError';
}

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

export interface CommandSpec<O extends OptionSpec> {
  /** e.g. "cloudops sandbox [--port N] [--state-file FILE]" */
  usage: string;
  summary: string;
  options: O;
  /** Help text for each option, printed by --help. */
  help: Partial<Record<keyof O, string>>;
  /** Old spellings still accepted, each mapped to the flag it now is (`state` → `state-file`). */
  aliases?: Record<string, string>;
  positionals?: number;
}

/** argv with every old spelling of a flag (before `--`) written as its current name. */
export function renameAliases(argv: readonly string[], aliases: Record<string, string> = {}) {
  const end = argv.indexOf('--');
  return argv.map((arg, i) => {
    if (!arg.startsWith('--') || (end >= 0 && i >= end)) return arg;
    const [name, ...value] = arg.slice(2).split('=');
    const current = aliases[name];
    return current === undefined ? arg : `--${[current, ...value].join('=')}`;
  });
}

/** One spelling a flag accepts: `--name` or an old `--alias`, and whether a value follows it. */
export interface FlagSpelling {
  flag: string;
  takesValue: boolean;
}

/**
 * Every spelling the flags of `spec` accept, current names first: what suggestions, the
 * subcommand finder (cli/help.ts) and completion all go by.
 */
export function flagSpellings<O extends OptionSpec>(spec: CommandSpec<O>): FlagSpelling[] {
  const aliases = spec.aliases ?? {};
  return [...Object.keys(spec.options), ...Object.keys(aliases)].map((name) => ({
    flag: `--${name}`,
    takesValue: spec.options[aliases[name] ?? name]?.type === 'string',
  }));
}

/** parseArgs' own messages, rewritten to name the flag and what was meant or expected. */
function usageErrorFrom(error: unknown, known: readonly string[]): UsageError {
  const { code, message } = error as { code?: string; message?: string };
  const text = message ?? String(error);
  const unknown = /^Unknown option '(-{1,2})([^']+)'/.exec(text);
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && unknown) {
    const [, dashes, name] = unknown;
    const hint = didYouMean(name, known, (s) => `--${s}`);
    return new UsageError(`unknown flag ${dashes}${name}${hint}`);
  }
  const missing = /^Option '(-\S+)(?: <value>)?' argument missing/.exec(text);
  if (missing) return new UsageError(`${missing[1].split(',').pop()!.trim()} expects a value`);
  const positional = /^Unexpected argument '([^']*)'/.exec(text);
  if (positional) return new UsageError(`unexpected argument: ${positional[1]}`);
  return new UsageError(text);
}

/** Strict parse: unknown flags and missing values are usage errors naming the flag. */
export function parseCommand<O extends OptionSpec>(spec: CommandSpec<O>, argv: string[]) {
  try {
    const parsed = parseArgs({
      args: renameAliases(argv, spec.aliases),
      options: { ...spec.options, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: (spec.positionals ?? 0) > 0,
    });
    if (parsed.positionals.length > (spec.positionals ?? 0)) {
      throw new UsageError(`unexpected argument: ${parsed.positionals.at(-1)}`);
    }
    return parsed;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const known = [...flagSpellings(spec).map((s) => s.flag.slice(2)), 'help'];
    throw usageErrorFrom(error, known);
  }
}

export function formatHelp<O extends OptionSpec>(spec: CommandSpec<O>): string {
  const lines = [`usage: ${spec.usage}`, '', spec.summary];
  const names = Object.keys(spec.options);
  if (names.length > 0) lines.push('', 'options:');
  const oldNames = Object.entries(spec.aliases ?? {});
  for (const name of names) {
    const option = spec.options[name];
    const flag = `--${name}${option.type === 'string' ? ' VALUE' : ''}`;
    const was = oldNames.filter(([, current]) => current === name).map(([old]) => `--${old}`);
    const also = was.length > 0 ? ` (also ${was.join(', ')})` : '';
    lines.push(`  ${flag.padEnd(26)} ${spec.help[name] ?? ''}${also}`);
  }
  lines.push(`  ${'--help, -h'.padEnd(26)} show this help`);
  return lines.join('\n');
}

/** Whole days a day-count flag may hold: at least one, at most 100 years. */
export const DAY_COUNT = { min: 1, max: 36_500, unit: 'days' } as const;

/** Parse a whole-number flag within [min, max], or raise a usage error naming it. */
export function intFlag(
  name: string,
  value: string | undefined,
  fallback: number,
  range: { min?: number; max?: number; unit?: string } = {},
): number {
  if (value === undefined) return fallback;
  const { min = 0, max = Number.MAX_SAFE_INTEGER, unit } = range;
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || parsed < min || parsed > max) {
    const what = `a whole number${unit ? ` of ${unit}` : ''}${min > 0 ? ` (${min} or more)` : ''}`;
    throw new UsageError(`--${name} expects ${what}, got "${value}"`);
  }
  return parsed;
}

/** The one subcommand a command takes (`alerts provision`, `keys rotate`), or a usage error. */
export function expectSubcommand(positionals: readonly string[], name: string): void {
  if (positionals[0] !== name) {
    const got = positionals[0];
    throw new UsageError(
      `expected ${name}, got ${got ? `"${got}"${didYouMean(got, [name])}` : 'nothing'}`,
    );
  }
}
