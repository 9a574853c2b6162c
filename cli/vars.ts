import { UsageError } from './args';
import type { CliIO } from './io';

/** Dashboard-file variables from the environment carry this prefix. */
export const VAR_ENV_PREFIX = 'CLOUDOPS_VAR_';

/** `CLOUDOPS_VAR_*` from the environment, then `--var NAME=VALUE` flags (flags win). */
export function collectVars(env: CliIO['env'], flags: readonly string[]): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (name.startsWith(VAR_ENV_PREFIX) && value !== undefined)
      vars[name.slice(VAR_ENV_PREFIX.length)] = value;
  }
  for (const flag of flags) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(flag);
    if (!match) throw new UsageError(`--var expects NAME=VALUE, got "${flag}"`);
    vars[match[1]] = match[2]!;
  }
  return vars;
}
