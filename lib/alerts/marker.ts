/**
 * The ownership marker cloudops appends to every alert message it writes. The alert API has
 * no idempotency key and no labels, and `message` is the one free-text field that survives a
 * create, a PUT and a list unchanged, so the marker lives there as its last line:
 *
 *   [cloudops:d/<dashboardKey>/<tileName>/<alertName>@<version>]   declared on a dashboard tile
 *   [cloudops:s/<searchKey>/<alertName>@<version>]                  declared on a saved search
 *   [cloudops:r/<requestKey>@<version>]                            requested by another system
 *
 * Parts are percent-encoded (no `/`, `@`, `]` or space inside), so the line always parses.
 * `version` is the ISO time of the event that last wrote the alert: an older event never
 * overwrites it.
 */

export type AlertOwner =
  | { kind: 'dashboard'; dashboardKey: string; tileName: string; alertName: string }
  | { kind: 'search'; searchKey: string; alertName: string }
  | { kind: 'request'; key: string };

export interface Marker {
  owner: AlertOwner;
  /** ISO time of the event that wrote the alert. */
  version: string;
}

const PREFIX = '[cloudops:';
const LINE = /(?:^|\n)\[cloudops:([^\]\s]*)\]\s*$/;

const enc = encodeURIComponent;

/** Stable identity string of an owner (also the keyed-mutex key). */
export function ownerId(owner: AlertOwner): string {
  if (owner.kind === 'dashboard')
    return `d/${enc(owner.dashboardKey)}/${enc(owner.tileName)}/${enc(owner.alertName)}`;
  if (owner.kind === 'search') return `s/${enc(owner.searchKey)}/${enc(owner.alertName)}`;
  return `r/${enc(owner.key)}`;
}

export function formatMarker(marker: Marker): string {
  return `${PREFIX}${ownerId(marker.owner)}@${marker.version}]`;
}

/** The user's message with the marker as its last line. */
export function withMarker(message: string | null | undefined, marker: Marker): string {
  const text = stripMarker(message);
  return text === '' ? formatMarker(marker) : `${text}\n${formatMarker(marker)}`;
}

/** The message without a trailing marker line (what the declaration said). */
export function stripMarker(message: string | null | undefined): string {
  if (!message) return '';
  return message.replace(LINE, '');
}

/** Parses the trailing marker; undefined for a hand-made alert or a damaged marker. */
export function parseMarker(message: string | null | undefined): Marker | undefined {
  const match = message ? LINE.exec(message) : null;
  if (!match) return undefined;
  const body = match[1];
  const at = body.lastIndexOf('@');
  if (at < 0) return undefined;
  const version = body.slice(at + 1);
  if (Number.isNaN(Date.parse(version))) return undefined;
  const parts = body.slice(0, at).split('/');
  try {
    const decoded = parts.slice(1).map((p) => decodeURIComponent(p));
    if (parts[0] === 'd' && decoded.length === 3 && decoded.every((p) => p !== '')) {
      const [dashboardKey, tileName, alertName] = decoded as [string, string, string];
      return { owner: { kind: 'dashboard', dashboardKey, tileName, alertName }, version };
    }
    if (parts[0] === 's' && decoded.length === 2 && decoded.every((p) => p !== '')) {
      const [searchKey, alertName] = decoded as [string, string];
      return { owner: { kind: 'search', searchKey, alertName }, version };
    }
    if (parts[0] === 'r' && decoded.length === 1 && decoded[0] !== '') {
      return { owner: { kind: 'request', key: decoded[0] }, version };
    }
  } catch {
    // A malformed %-escape: treat as damaged.
  }
  return undefined;
}

/** Negative when a is older than b (versions are ISO times). */
export function compareVersions(a: string, b: string): number {
  return Date.parse(a) - Date.parse(b);
}
