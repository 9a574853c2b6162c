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

/** Entries kept; older ones are dropped (counted) so a long-lived sandbox stays bounded. */
const MAX_LOG_ENTRIES = 10_000;

/** Reading the log after it dropped entries: a reader would otherwise count too few requests. */
class RequestLogTruncatedError extends Error {
  constructor(
    readonly total: number,
    readonly dropped: number,
  ) {
    super(
      `request log truncated: ${dropped} of ${total} entries dropped (it keeps the last ${MAX_LOG_ENTRIES}); clear it before a run that makes more requests`,
    );
    this.name = 'RequestLogTruncatedError';
  }
}

export class RequestLog {
  private list: RequestLogEntry[] = [];
  private seq = 0;
  /** Requests since the last clear, dropped ones included. */
  private logged = 0;
  constructor(private readonly now: () => number) {}

  add(entry: Omit<RequestLogEntry, 'seq' | 'at'>): RequestLogEntry {
    const full: RequestLogEntry = {
      seq: ++this.seq,
      at: new Date(this.now()).toISOString(),
      ...entry,
    };
    this.list.push(full);
    this.logged++;
    if (this.list.length > MAX_LOG_ENTRIES) this.list.splice(0, this.list.length - MAX_LOG_ENTRIES);
    return full;
  }

  /** Every request since the last clear; throws when some were dropped (never a silent part). */
  entries(): RequestLogEntry[] {
    if (this.dropped() > 0) throw new RequestLogTruncatedError(this.logged, this.dropped());
    return this.list.map((entry) => ({ ...entry }));
  }

  /** How many requests were logged since the last clear (exact, whatever the log kept). */
  count(): number {
    return this.logged;
  }

  dropped(): number {
    return this.logged - this.list.length;
  }

  clear(): void {
    this.list = [];
    this.logged = 0;
  }
}
