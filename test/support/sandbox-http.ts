/** Raw HTTP calls to a sandbox (status, headers, JSON body), for the sandbox and contract tests. */
import type { Sandbox } from '../../sandbox/index';

export function basic(keyId: string, keySecret: string): string {
  return 'Basic ' + Buffer.from(`${keyId}:${keySecret}`).toString('base64');
}

export interface Call {
  status: number;
  headers: Headers;
  text: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function call(url: string, init: RequestInit): Promise<Call> {
  const res = await fetch(url, init);
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** Management API call with the seed admin key unless `auth` is given. */
export function mgmt(
  sb: Sandbox,
  method: string,
  path: string,
  body?: unknown,
  auth?: string,
): Promise<Call> {
  const { info } = sb;
  return call(`${info.apiUrl}/v1/organizations/${info.organizationId}${path}`, {
    method,
    headers: {
      authorization: auth ?? basic(info.keyId, info.keySecret),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** Observability API call with the seed token unless `token` is given (null = no header). */
export function obs(
  sb: Sandbox,
  method: string,
  path: string,
  body?: unknown,
  token?: string | null,
): Promise<Call> {
  const bearer = token === undefined ? sb.info.observabilityToken : token;
  return call(`${sb.info.observabilityUrl}/api/v2${path}`, {
    method,
    headers: {
      ...(bearer !== null ? { authorization: `Bearer ${bearer}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

export function admin(sb: Sandbox, method: string, path: string, body?: unknown): Promise<Call> {
  return call(`${sb.info.apiUrl}/_sandbox${path}`, {
    method,
    headers: body !== undefined ? { 'content-type': 'application/json' } : {},
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
