import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CloudOpsError } from '../lib/errors';

/** A mistake in how the command was called: printed with the usage, exit code 2. */
export class UsageError extends CloudOpsError {
  override name = 'UsageError';
}

type OptionSpec = NonNullable<ParseArgsConfig['options']>;

export interface CommandSpec<O extends OptionSpec> {
  /** e.g. "cloudops sandbox [--port N] [--state FILE]" */
  usage: string;
  summary: string;
  options: O;
  /** Help text for each option, printed by --help. */
  help: Partial<Record<keyof O, string>>;
  positionals?: number;
}

/** Strict parse: unknown flags and missing values are usage errors naming the flag. */
export function parseCommand<O extends OptionSpec>(spec: CommandSpec<O>, argv: string[]) {
  try {
    const parsed = parseArgs({
      args: argv,
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
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

export function formatHelp<O extends OptionSpec>(spec: CommandSpec<O>): string {
  const lines = [`usage: ${spec.usage}`, '', spec.summary];
  const names = Object.keys(spec.options);
  if (names.length > 0) lines.push('', 'options:');
  for (const name of names) {
    const option = spec.options[name];
    const flag = `--${name}${option.type === 'string' ? ' VALUE' : ''}`;
    lines.push(`  ${flag.padEnd(26)} ${spec.help[name] ?? ''}`);
  }
  lines.push(`  ${'--help, -h'.padEnd(26)} show this help`);
  return lines.join('\n');
}

/** Parse an integer flag, or raise a usage error naming it. */
export function intFlag(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) {
    throw new UsageError(`--${name} expects a whole number, got "${value}"`);
  }
  return parsed;
}

/** The one subcommand a command takes (`alerts provision`, `keys rotate`), or a usage error. */
export function expectSubcommand(positionals: readonly string[], name: string): void {
  if (positionals[0] !== name) {
    throw new UsageError(
      `expected ${name}, got ${positionals[0] ? `"${positionals[0]}"` : 'nothing'}`,
    );
  }
}
