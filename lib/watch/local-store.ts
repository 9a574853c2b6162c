/**
 * The CLI's watch store: in memory, optionally persisted to a JSON file, which also reads the
 * watchdog's state file from before scopes existed. Apart from store.ts so the functions, which
 * keep their records in DynamoDB, bundle none of it.
 */
import { readFile } from 'node:fs/promises';
import * as z from 'zod/mini';
import { safeInteger, stringRecord } from '../schemas/builders';
import { writeJsonAtomic } from '../atomic-write';
import { ValidationError } from '../errors';
import { parseOrThrow } from '../format-issues';
import type { WatchStore } from './store';

/** The version condition (DynamoDB's is its conditional Put). */
function versionMatches(stored: { version?: unknown } | undefined, next: { version: number }) {
  return next.version === 0 ? stored === undefined : stored?.version === next.version - 1;
}

const versioned = z.lazy(() =>
  z.looseObject({ version: z.number().check(safeInteger(), z.nonnegative()) }),
);
const fileShape = z.lazy(() =>
  z.object({
    records: z._default(stringRecord(z.string(), stringRecord(z.string(), versioned)), {}),
  }),
);
type FileShape = z.output<typeof fileShape>;

/**
 * The watchdog's state file before scopes existed: `pipes` by `<org>#<service>#<pipe id>`,
 * `services` by `<org>#<service>`. Read into the scopes the watchdog uses now (a service's
 * scope `<org>#<service>`, its own record `#service`), so an existing file carries on.
 */
const pipeShapedFile = z.lazy(() =>
  z.object({
    pipes: stringRecord(
      z.string(),
      z.looseObject({ organizationId: z.string(), serviceId: z.string(), pipeId: z.string() }),
    ),
    services: z._default(
      stringRecord(
        z.string(),
        z.looseObject({ organizationId: z.string(), serviceId: z.string() }),
      ),
      {},
    ),
  }),
);

function fromPipeShapedFile(old: z.output<typeof pipeShapedFile>): unknown {
  const records: Record<string, Record<string, unknown>> = {};
  const put = (r: { organizationId: string; serviceId: string }, id: string) =>
    ((records[`${r.organizationId}#${r.serviceId}`] ??= {})[id] = r);
  for (const r of Object.values(old.pipes)) put(r, r.pipeId);
  for (const r of Object.values(old.services)) put(r, '#service');
  return { records };
}

/**
 * In-memory store, optionally persisted to a JSON file (atomic: temp file + rename). The
 * version check holds within one process; the CLI is its user, one pass at a time.
 */
export class LocalWatchStore implements WatchStore {
  readonly label: string;
  private data: FileShape = { records: {} };
  private loaded: Promise<void> | undefined;
  private writing: Promise<void> | undefined;
  private queued: Promise<void> | undefined;

  constructor(private readonly file?: string) {
    this.label = file ? `file ${file}` : 'memory';
  }

  private async ready(): Promise<void> {
    this.loaded ??= this.load();
    return this.loaded;
  }

  private async load(): Promise<void> {
    if (!this.file) return;
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new ValidationError(`state file ${this.file} is not JSON`, {
        source: this.file,
        cause: error,
      });
    }
    const invalid = `state file ${this.file} is invalid`;
    const current =
      typeof json === 'object' && json !== null && 'pipes' in json
        ? fromPipeShapedFile(parseOrThrow(pipeShapedFile, json, this.file, invalid))
        : json;
    this.data = parseOrThrow(fileShape, current, this.file, invalid);
  }

  /**
   * Coalesced atomic writes: at most one write runs and one waits; a waiting write snapshots
   * the state when it starts, so every change made before then is in it.
   */
  private persist(): Promise<void> {
    if (!this.file) return Promise.resolve();
    if (this.queued) return this.queued;
    if (!this.writing) return (this.writing = this.writeNow());
    // The queued write runs whether the running one failed or not: its failure is reported to
    // its own callers, and a rejected `queued` left in place would fail every later save.
    const next = () => {
      this.queued = undefined;
      return (this.writing = this.writeNow());
    };
    this.queued = this.writing.then(next, next);
    return this.queued;
  }

  private async writeNow(): Promise<void> {
    try {
      await writeJsonAtomic(this.file!, this.data);
    } finally {
      this.writing = undefined;
    }
  }

  async list(scope: string) {
    await this.ready();
    return Object.entries(this.data.records[scope] ?? {}).map(([id, record]) => ({
      id,
      record: structuredClone(record),
    }));
  }

  async get(scope: string, id: string) {
    await this.ready();
    const record = this.data.records[scope]?.[id];
    return record && structuredClone(record);
  }

  async save(scope: string, id: string, record: { version: number }): Promise<boolean> {
    await this.ready();
    const records = (this.data.records[scope] ??= {});
    if (!versionMatches(records[id], record)) return false;
    records[id] = structuredClone(record);
    await this.persist();
    return true;
  }
}
