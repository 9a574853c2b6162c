/** Output files a command will write, checked before it does anything (no lost work at the end). */
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from './args';

/**
 * Throws a usage error naming the flag when `file` cannot be written: its folder is missing or
 * not writable, it is a folder, or it exists read-only. Creates nothing.
 */
export function assertWritable(flag: string, file: string): void {
  const dir = path.dirname(path.resolve(file));
  const stat = statSync(file, { throwIfNoEntry: false });
  if (stat?.isDirectory()) throw new UsageError(`${flag} ${file}: is a folder; give a file name`);
  try {
    if (stat) accessSync(file, constants.W_OK);
    else accessSync(dir, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const what =
      code === 'ENOENT'
        ? `folder ${dir} does not exist`
        : `not writable (${code ?? 'unknown'}); check its permissions`;
    throw new UsageError(`${flag} ${file}: ${what}`);
  }
}
