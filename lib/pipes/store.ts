/**
 * Where the watchdog remembers each pipe. Every write is conditional on the version it read,
 * so of two overlapping runs only one can claim a transition (and so send its notification).
 */
import { readFile } from 'node:fs/promises';
import * as z from 'zod';
import { writeJsonAtomic } from '../atomic-write';
import { ValidationError } from '../errors';
import { parseOrThrow } from '../format-issues';
import { pipeRecord, serviceRecord, type PipeRecord, type ServiceRecord } from './types';

export interface ServiceState {
  pipes: PipeRecord[];
  service: ServiceRecord | undefined;
}

export interface StateStore {
  readonly label: string;
  /** Every record of one service (one request in DynamoDB). */
  loadService(organizationId: string, serviceId: string): Promise<ServiceState>;
  getPipe(
    organizationId: string,
    serviceId: string,
    pipeId: string,
  ): Promise<PipeRecord | undefined>;
  getService(organizationId: string, serviceId: string): Promise<ServiceRecord | undefined>;
  /**
   * Write `record` if the stored copy still has version `record.version - 1` (absent when
   * `record.version` is 0). Resolves false when another writer got there first.
   */
  savePipe(record: PipeRecord): Promise<boolean>;
  saveService(record: ServiceRecord): Promise<boolean>;
}

export const serviceKey = (organizationId: string, serviceId: string) =>
  `${organizationId}#${serviceId}`;

/** The version condition every store applies. */
export function versionMatches(
  stored: { version: number } | undefined,
  next: { version: number },
): boolean {
  return next.version === 0 ? stored === undefined : stored?.version === next.version - 1;
}

const fileShape = z.object({
  pipes: z.record(z.string(), pipeRecord).default({}),
  services: z.record(z.string(), serviceRecord).default({}),
});
type FileShape = z.output<typeof fileShape>;

/**
 * In-memory store, optionally persisted to a JSON file (atomic: temp file + rename). The
 * version check holds within one process; the CLI is its user, one pass at a time.
 */
export class LocalStateStore implements StateStore {
  readonly label: string;
  private data: FileShape = { pipes: {}, services: {} };
  private loaded: Promise<void> | undefined;
  private writing: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  /** service key -> pipe ids, so reading a service does not scan every pipe */
  private readonly byService = new Map<string, Set<string>>();

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
    this.data = parseOrThrow(fileShape, json, this.file, `state file ${this.file} is invalid`);
    for (const record of Object.values(this.data.pipes)) this.index(record);
  }

  private index(record: PipeRecord): void {
    const key = serviceKey(record.organizationId, record.serviceId);
    let ids = this.byService.get(key);
    if (!ids) this.byService.set(key, (ids = new Set()));
    ids.add(record.pipeId);
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

  async loadService(organizationId: string, serviceId: string): Promise<ServiceState> {
    await this.ready();
    const key = serviceKey(organizationId, serviceId);
    const pipes = [...(this.byService.get(key) ?? [])].map((id) =>
      structuredClone(this.data.pipes[`${key}#${id}`]),
    );
    return { pipes, service: await this.getService(organizationId, serviceId) };
  }

  async getPipe(organizationId: string, serviceId: string, pipeId: string) {
    await this.ready();
    const record = this.data.pipes[`${serviceKey(organizationId, serviceId)}#${pipeId}`];
    return record && structuredClone(record);
  }

  async getService(organizationId: string, serviceId: string) {
    await this.ready();
    const record = this.data.services[serviceKey(organizationId, serviceId)];
    return record && structuredClone(record);
  }

  async savePipe(record: PipeRecord): Promise<boolean> {
    await this.ready();
    const key = `${serviceKey(record.organizationId, record.serviceId)}#${record.pipeId}`;
    if (!versionMatches(this.data.pipes[key], record)) return false;
    this.data.pipes[key] = structuredClone(record);
    this.index(record);
    await this.persist();
    return true;
  }

  async saveService(record: ServiceRecord): Promise<boolean> {
    await this.ready();
    const key = serviceKey(record.organizationId, record.serviceId);
    if (!versionMatches(this.data.services[key], record)) return false;
    this.data.services[key] = structuredClone(record);
    await this.persist();
    return true;
  }
}
