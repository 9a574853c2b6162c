/**
 * `--settings FILE`: connection settings as KEY=VALUE lines, for any command. Our own name,
 * because Node 20 reads `--env-file` anywhere in its argv as its own flag: under `npx` or
 * `node dist/cloudops.js` it never reached us, and a missing file was Node's exit 9. The old
 * spelling still works where Node leaves it to us (the installed bin, whose shebang ends Node's
 * options with `--`).
 */
import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { UsageError } from './args';
import type { CliIO } from './io';

export const SETTINGS_FLAG = '--settings';
const SPELLINGS = [SETTINGS_FLAG, '--env-file'];

/** The file name a settings flag at `argv[i]` gives, and how many arguments it used. */
function settingsFlagAt(argv: readonly string[], i: number) {
  const arg = argv[i];
  for (const flag of SPELLINGS) {
    if (arg === flag) return { flag, file: argv[i + 1], used: 2 };
    if (arg.startsWith(`${flag}=`)) return { flag, file: arg.slice(flag.length + 1), used: 1 };
  }
  return undefined;
}

function readSettings(flag: string, file: string): Record<string, string> {
  try {
    return parseEnv(readFileSync(file, 'utf8')) as Record<string, string>;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    const hint =
      code === 'ENOENT'
        ? ' (no such file; `cloudops sandbox --write-env FILE` writes one)'
        : code === 'EISDIR'
          ? ' (a folder; give the settings file)'
          : ` (check the file's permissions)`;
    throw new UsageError(`${flag} ${file}: ${code}${hint}`);
  }
}

/**
 * Takes `--settings FILE` (anywhere before `--`, any number of times) out of argv and adds the
 * file's variables to the env; variables already set win, as with dotenv.
 */
export function withSettingsFiles(argv: string[], io: CliIO): { argv: string[]; io: CliIO } {
  const rest: string[] = [];
  let env = io.env;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    const found = settingsFlagAt(argv, i);
    if (!found) {
      rest.push(argv[i]);
      continue;
    }
    if (!found.file) throw new UsageError(`${found.flag} expects a file name`);
    env = { ...readSettings(found.flag, found.file), ...env };
    i += found.used - 1;
  }
  return { argv: rest, io: env === io.env ? io : { ...io, env } };
}
