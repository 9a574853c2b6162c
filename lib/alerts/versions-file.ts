/**
 * The CLI's version store: a JSON file (default .cloudops/alerts-versions.json), so a delayed
 * older event file is still refused on a later run. Each advance holds a lock file
 * (`<file>.lock`, created exclusively) while it re-reads the file, compares and replaces it
 * (temp file + rename), so concurrent CLI runs cannot lose a version. A lock left by a crashed
 * run is taken over after LOCK_STALE_MS.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import { CloudOpsError, ValidationError } from '../errors';
import { parseOrThrow } from '../format-issues';
import { versionMillis, type VersionStore } from './versions';

export const DEFAULT_VERSIONS_FILE = '.cloudops/alerts-versions.json';
const LOCK_STALE_MS = 30_000;
const LOCK_WAIT_MS = 10_000;

const fileShape = z.object({
  versions: z.record(z.string(), z.iso.datetime({ offset: true })),
});

export class FileVersionStore implements VersionStore {
  readonly label: string;

  constructor(private readonly file: string) {
    this.label = `file ${file}`;
  }

  /** Always from disk: another run may have advanced since (a file read is cheap here). */
  async get(key: string): Promise<string | undefined> {
    return (await this.read())[key];
  }

  async advance(key: string, version: string): Promise<boolean> {
    const ms = versionMillis(version);
    return this.locked(async () => {
      const versions = await this.read();
      const stored = versions[key];
      if (stored !== undefined && ms <= versionMillis(stored)) {
        return false;
      }
      versions[key] = version;
      await this.write(versions);
      return true;
    });
  }

  private async locked<T>(work: () => Promise<T>): Promise<T> {
    const lock = `${this.file}.lock`;
    await mkdir(path.dirname(path.resolve(this.file)), { recursive: true });
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (let wait = 2; ; wait = Math.min(wait * 2, 20)) {
      try {
        await (await open(lock, 'wx', 0o600)).close();
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const age = await stat(lock).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > LOCK_STALE_MS) {
        await unlink(lock).catch(() => undefined);
        continue;
      }
      if (Date.now() > deadline) {
        throw new CloudOpsError(
          `alert version file ${this.file} is locked by another run (remove ${lock} if none is running)`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    try {
      return await work();
    } finally {
      await unlink(lock).catch(() => undefined);
    }
  }

  private async read(): Promise<Record<string, string>> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw error;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new ValidationError(`alert version file ${this.file} is not JSON`, {
        source: this.file,
        cause: error,
      });
    }
    return parseOrThrow(fileShape, json, this.file, `alert version file ${this.file} is invalid`)
      .versions;
  }

  private async write(versions: Record<string, string>): Promise<void> {
    await mkdir(path.dirname(path.resolve(this.file)), { recursive: true });
    const temp = `${this.file}.${process.pid}.${randomUUID()}.tmp`;
    await writeFile(temp, JSON.stringify({ versions }, null, 2) + '\n', { mode: 0o600 });
    await rename(temp, this.file);
  }
}
