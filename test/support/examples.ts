/** The example folder (dashboards/) as the tests apply it to each sandbox profile. */
import { cp, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const EXAMPLES = path.join(import.meta.dirname, '../../dashboards');

const AUGUST_ALERT_FIELD =
  /^\s*(numConsecutiveWindows|scheduleOffsetMinutes|scheduleStartAt):.*\n/gm;

/**
 * `current`: the folder itself. `spec`: a copy without the August 2026 alert fields, which the
 * spec snapshot's service does not have (it drops them, so every plan would send them again).
 */
export async function examplesFor(profile: 'current' | 'spec'): Promise<string> {
  if (profile === 'current') return EXAMPLES;
  const dir = await mkdtemp(path.join(tmpdir(), 'cloudops-examples-spec-'));
  await cp(EXAMPLES, dir, { recursive: true });
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.ya?ml$/.test(entry.name)) continue;
    const file = path.join(entry.parentPath, entry.name);
    await writeFile(file, (await readFile(file, 'utf8')).replace(AUGUST_ALERT_FIELD, ''));
  }
  return dir;
}
