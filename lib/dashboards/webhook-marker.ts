/**
 * The ownership marker of a webhook cloudops writes. A webhook has no tags, so the marker is the
 * last line of its `description`, the one free-text field a create, a PUT and a list keep:
 *
 *   [cloudops:w k=<key> o=<owner> h=<digest> q=<digest> t=<templates>]
 *
 * `t` holds the file's URL, headers and query parameters before the variables and secret
 * references are replaced (`${NAME}`s and `{ secret, key }`s: the file never holds a value), so
 * `pull` writes them back as written.
 *
 * It also holds a digest of the headers and of the query parameters last sent. The service never
 * returns them, so this is the only way to tell whether they changed. It lives on the webhook,
 * not in a store of ours: the CLI and the function see the same answer with no extra request,
 * and a webhook deleted by hand takes its digests with it. A digest is a salted, truncated
 * sha256 (salted with the key; value-digest.ts), so it names no value; `-` means none sent.
 */
import { stableStringify } from '../diff';
import { DEFAULT_OWNER } from './ownership';
import type { DesiredWebhook } from './types';

export interface WebhookMarker {
  key: string;
  owner: string;
  /** Digest of the headers last sent; undefined when none were. */
  headers?: string;
  queryParams?: string;
  /** The URL, headers and query parameters as the file writes them (variables, not values). */
  templates?: WebhookTemplates;
}

export type WebhookTemplates = DesiredWebhook['templates'];

const LINE = /(?:^|\n)\[cloudops:w ([^\]\n]*)\]\s*$/;
const enc = encodeURIComponent;

export function formatWebhookMarker(m: WebhookMarker): string {
  const t = m.templates ? ` t=${enc(stableStringify(m.templates))}` : '';
  return `[cloudops:w k=${enc(m.key)} o=${enc(m.owner)} h=${m.headers ?? '-'} q=${m.queryParams ?? '-'}${t}]`;
}

/** The user's description with the marker as its last line. */
export function describedWithMarker(description: string | undefined, m: WebhookMarker): string {
  const text = descriptionWithoutMarker(description);
  return text === '' ? formatWebhookMarker(m) : `${text}\n${formatWebhookMarker(m)}`;
}

export function descriptionWithoutMarker(description: string | null | undefined): string {
  return description ? description.replace(LINE, '') : '';
}

/** The marker of a webhook cloudops wrote; undefined for a hand-made one or a damaged marker. */
export function parseWebhookMarker(
  description: string | null | undefined,
): WebhookMarker | undefined {
  const match = description ? LINE.exec(description) : null;
  if (!match) return undefined;
  const fields = new Map(
    match[1].split(' ').map((part) => {
      const eq = part.indexOf('=');
      return [part.slice(0, eq), part.slice(eq + 1)] as const;
    }),
  );
  const digest = (v: string | undefined) => (v && v !== '-' ? v : undefined);
  try {
    const key = decodeURIComponent(fields.get('k') ?? '');
    if (key === '') return undefined;
    const headers = digest(fields.get('h'));
    const queryParams = digest(fields.get('q'));
    const t = fields.get('t');
    const templates = t ? (JSON.parse(decodeURIComponent(t)) as WebhookTemplates) : undefined;
    return {
      key,
      owner: decodeURIComponent(fields.get('o') ?? '') || DEFAULT_OWNER,
      ...(headers ? { headers } : {}),
      ...(queryParams ? { queryParams } : {}),
      ...(templates && typeof templates === 'object' ? { templates } : {}),
    };
  } catch {
    return undefined;
  }
}
