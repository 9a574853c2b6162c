import { timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { IpAccessEntry, KeyRole } from '../lib/schemas';
import { forbidden, unauthorized } from './errors';
import { sha256Base64 } from './ids';
import type { KeyRow, Store, TokenRow } from './store';

interface BasicCredentials {
  keyId: string;
  keySecret: string;
}

export function parseBasic(header: string | undefined): BasicCredentials | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  return { keyId: decoded.slice(0, colon), keySecret: decoded.slice(colon + 1) };
}

export function parseBearer(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}

function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Authenticates a management request: key found by the hash of its ID, secret hash compared in
 * constant time, then state, expiry (sandbox clock) and IP access list. Every failure is a 401.
 */
export function authenticateKey(
  store: Store,
  credentials: BasicCredentials | undefined,
  remoteAddress: string,
  now: number,
): KeyRow {
  if (!credentials) throw unauthorized('missing or malformed Basic credentials');
  const idHash = sha256Base64(credentials.keyId);
  const key = store.state.keys.find((k) => sameHash(k.keyIdHash, idHash));
  if (!key || !sameHash(key.keySecretHash, sha256Base64(credentials.keySecret))) {
    throw unauthorized('invalid API key');
  }
  if (key.state !== 'enabled') throw unauthorized('API key is disabled');
  if (key.expireAt && Date.parse(key.expireAt) <= now) throw unauthorized('API key has expired');
  if (!ipAllowed(key.ipAccessList, remoteAddress)) {
    throw unauthorized(`API key is not allowed from address ${normalizeAddress(remoteAddress)}`);
  }
  return key;
}

/**
 * What a key may do: its role assignment when it has one (current profile; the deprecated `roles`
 * is then only a label), else its `roles`.
 */
function effectiveRoles(store: Store, key: KeyRow): readonly KeyRole[] {
  if (!key.assignedRoles) return key.roles;
  const catalog = store.state.roleCatalog ?? [];
  return key.assignedRoles.flatMap(
    (assigned) => catalog.find((role) => role.roleId === assigned.roleId)?.grants ?? [],
  );
}

/** Management operations need admin or developer; key operations need admin. */
export function requireRole(store: Store, key: KeyRow, admin: boolean): void {
  const roles = effectiveRoles(store, key);
  if (admin && !roles.includes('admin')) throw forbidden('this operation requires the admin role');
  if (!admin && !roles.some((role) => role === 'admin' || role === 'developer')) {
    throw forbidden('this operation requires the admin or developer role');
  }
}

export function authenticateToken(store: Store, token: string | undefined): TokenRow | undefined {
  if (!token) return undefined;
  const hash = sha256Base64(token);
  return store.state.tokens.find((t) => sameHash(t.tokenHash, hash));
}

function normalizeAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1] : address;
}

/** True when `source` is an IPv4/IPv6 address or an IPv4 CIDR (the forms the sandbox enforces). */
export function isValidIpSource(source: string): boolean {
  const [address, bits, extra] = source.split('/');
  if (extra !== undefined || !address) return false;
  if (bits === undefined) return isIP(normalizeAddress(address)) !== 0;
  const prefix = Number(bits);
  return isIP(address) === 4 && /^\d{1,2}$/.test(bits) && prefix >= 0 && prefix <= 32;
}

/** An empty or absent list allows every address. */
function ipAllowed(list: readonly IpAccessEntry[], remoteAddress: string): boolean {
  if (list.length === 0) return true;
  const caller = normalizeAddress(remoteAddress);
  return list.some((entry) => sourceMatches(entry.source.trim(), caller));
}

function sourceMatches(source: string, caller: string): boolean {
  const [address, bits] = source.split('/');
  if (!address) return false;
  if (bits === undefined) return normalizeAddress(address) === caller;
  if (isIP(address) !== 4 || isIP(caller) !== 4) return false;
  const prefix = Number(bits);
  const mask = prefix === 0 ? 0 : (~0 << (32 - prefix)) >>> 0;
  return (ipv4ToInt(address) & mask) >>> 0 === (ipv4ToInt(caller) & mask) >>> 0;
}

function ipv4ToInt(address: string): number {
  return address.split('.').reduce((acc, octet) => ((acc << 8) | Number(octet)) >>> 0, 0);
}
