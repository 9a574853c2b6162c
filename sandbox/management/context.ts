import type { KeyRules } from '../profiles/key-rules';
import type { KeyRow, Store } from '../store';

/** What a management handler gets once auth, role and path parameters are checked. */
export interface ManagementRequest {
  params: Record<string, string>;
  body: unknown;
  key: KeyRow;
  store: Store;
  /** Sandbox clock, ms. */
  now: number;
  /** The profile's part a handler asks: how it reads and shows keys. */
  profile: { readonly keys: KeyRules };
  query: URLSearchParams;
  /** The caller's address and User-Agent, as the audit trail records them. */
  remoteAddress: string;
  userAgent: string;
}

export interface ManagementHandler {
  /** Key operations need the admin role; the rest admin or developer. */
  admin: boolean;
  /** Returns the envelope's `result`; `undefined` answers an envelope without one (DELETE). */
  run(req: ManagementRequest): unknown;
}

/** A handler's answer that is text rather than a JSON envelope (the metrics endpoint's 200). */
export class TextResult {
  constructor(
    readonly text: string,
    readonly contentType: string,
  ) {}
}
