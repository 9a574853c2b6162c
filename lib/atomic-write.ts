import { randomUUID } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Writes `text` whole or not at all: a temp file beside `file` (mode 600: these files hold
 * state and connection settings) renamed over it, so a reader or a crash never sees half of it.
 */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const temp = `${file}.${process.pid}.${randomUUID()}.tmp`;
  try {
    await mkdir(path.dirname(path.resolve(file)), { recursive: true });
    await writeFile(temp, text, { mode: 0o600 });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** `value` as indented JSON with a final newline, written atomically. */
export function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  return writeFileAtomic(file, JSON.stringify(value, null, 2) + '\n');
}
