import { varsFromEnv } from '../lib/config';
import { UsageError } from './args';
import type { CliIO } from './io';

export { VAR_ENV_PREFIX } from '../lib/config';

/** `CLOUDOPS_VAR_*` from the environment, then `--var NAME=VALUE` flags (flags win). */
export function collectVars(env: CliIO['env'], flags: readonly string[]): Record<string, string> {
  const vars = varsFromEnv(env);
  for (const flag of flags) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(flag);
    if (!match) throw new UsageError(`--var expects NAME=VALUE, got "${flag}"`);
    vars[match[1]] = match[2]!;
  }
  return vars;
}
