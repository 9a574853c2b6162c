/**
 * The CLI's version store: a JSON file (default .cloudops/alerts-versions.json), so a delayed
 * older event file is still refused on a later run. Each advance holds a lock file
 * (`<file>.lock`, created exclusively) while it re-reads the file, compares and replaces it
 * (temp file + rename), so concurrent CLI runs cannot lose a version. A lock left by a crashed
 * run is taken over after LOCK_STALE_MS.
 */
import { mkdir, open, readFile, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod/mini';
import { stringRecord } from '../schemas/builders';
import { isoDateTime } from '../schemas/common';
import { writeJsonAtomic } from '../atomic-write';
import { CloudOpsError, ValidationError } from '../errors';
import { parseOrThrow } from '../format-issues';
import {
  MAX_DECLARED_OWNERS,
  versionMillis,
  type Declaration,
  type Newest,
  type VersionStore,
} from './versions';

export const DEFAULT_VERSIONS_FILE = '.cloudops/alerts-versions.json';
const LOCK_STALE_MS = 30_000;
const LOCK_WAIT_MS = 10_000;

const fileShape = z.lazy(() =>
  z.object({
    versions: stringRecord(z.string(), isoDateTime),
    /** What the newest event of each key declared (files written before this field: none). */
    declared: z.optional(
      stringRecord(
        z.string(),
        z.object({
          digest: z.string(),
          owners: z.array(z.string()).check(z.maxLength(MAX_DECLARED_OWNERS)),
        }),
      ),
    ),
  }),
);
type FileState = z.infer<typeof fileShape>;

export class FileVersionStore implements VersionStore {
  readonly label: string;

  constructor(private readonly file: string) {
    this.label = `file ${file}`;
  }

  /** Always from disk: another run may have advanced since (a file read is cheap here). */
  async get(key: string): Promise<string | undefined> {
    return (await this.read()).versions[key];
  }

  async newest(key: string): Promise<Newest | undefined> {
    const state = await this.read();
    const version = state.versions[key];
    if (version === undefined) return undefined;
    const declaration = state.declared?.[key];
    return declaration ? { version, declaration } : { version };
  }

  async advance(key: string, version: string, declaration?: Declaration): Promise<boolean> {
    const ms = versionMillis(version);
    return this.locked(async () => {
      const state = await this.read();
      const stored = state.versions[key];
      if (stored !== undefined && ms <= versionMillis(stored)) {
        return false;
      }
      state.versions[key] = version;
      const declared = { ...state.declared };
      if (declaration) declared[key] = declaration;
      else delete declared[key];
      await this.write({
        versions: state.versions,
        ...(Object.keys(declared).length > 0 ? { declared } : {}),
      });
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

  private async read(): Promise<FileState> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { versions: {} };
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
    return parseOrThrow(fileShape, json, this.file, `alert version file ${this.file} is invalid`);
  }

  private async write(state: FileState): Promise<void> {
    await writeJsonAtomic(this.file, state);
  }
}
