import type { FaultKind } from './faults';

export type Surface = 'management' | 'observability' | 'secretsmanager' | 'admin';

/** One request as the tests see it. Never holds a secret: only key suffixes, record ids and token labels. */
export interface RequestLogEntry {
  seq: number;
  at: string;
  surface: Surface;
  method: string;
  path: string;
  /** HTTP status sent; 0 when the connection was reset. */
  status: number;
  /** Management: last 4 chars of the key ID sent; observability: the token's label; else absent. */
  credential?: string;
  /** Management: the authenticated key's record id. */
  keyRecordId?: string;
  requestId?: string;
  /** Secrets Manager: the X-Amz-Target operation (GetSecretValue, ...). */
  operation?: string;
  fault?: FaultKind;
}

const MAX_ENTRIES = 10_000;

export class RequestLog {
  private list: RequestLogEntry[] = [];
  private seq = 0;
  constructor(private readonly now: () => number) {}

  add(entry: Omit<RequestLogEntry, 'seq' | 'at'>): RequestLogEntry {
    const full: RequestLogEntry = {
      seq: ++this.seq,
      at: new Date(this.now()).toISOString(),
      ...entry,
    };
    this.list.push(full);
    if (this.list.length > MAX_ENTRIES) this.list.splice(0, this.list.length - MAX_ENTRIES);
    return full;
  }

  entries(): RequestLogEntry[] {
    return this.list.map((entry) => ({ ...entry }));
  }

  clear(): void {
    this.list = [];
  }
}
