/**
 * `{ secret: <id or ARN> }` (and `{ secret, key }` for a field of a JSON secret) as a webhook's
 * url, header or query-parameter value. Each secret is read once per run, before validation (so
 * before any write); the value replaces the reference, is registered for redaction, and the
 * reference (never the value) is what the marker keeps and `pull` writes back.
 */
import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { AWSCURRENT } from '../credentials/secrets-manager';
import { registerSecret } from '../redact';
import { kindOf, type SecretRef } from './kinds-schema';
import type { ParsedFile } from './parse';
import { grantCovers, referenceForm } from './secret-reference';
import type { FileIssue } from './types';

/**
 * What reading one secret gave: its SecretString, or why there is none (never a value); or that
 * it was left unread because another reference refused the run before any read.
 */
type SecretRead = { text: string } | { problem: string } | { unread: true };
export type SecretReads = ReadonlyMap<string, SecretRead>;

const WRITE_ONLY = ['headers', 'queryParams'] as const;
const OFFLINE_STAND_IN = 'https://secret.invalid/';

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export const isSecretRef = (v: unknown): v is SecretRef =>
  isRecord(v) && typeof v.secret === 'string';

/** A place of a webhook that may hold a reference: `['url']`, or `['headers', name]`. */
export type WebhookPath = ['url'] | [(typeof WRITE_ONLY)[number], string];

/** Each place of a webhook (file, or its templates or values) that may hold a reference. */
export function valuePlaces(raw: Record<string, unknown>): [WebhookPath, unknown][] {
  const places: [WebhookPath, unknown][] = [[['url'], raw.url]];
  for (const field of WRITE_ONLY) {
    const map = raw[field];
    if (isRecord(map)) for (const [k, v] of Object.entries(map)) places.push([[field, k], v]);
  }
  return places;
}

/** The secret ids a webhook's url, headers and query parameters reference (well-formed ones). */
export function secretIdsIn(raw: unknown): string[] {
  if (!isRecord(raw)) return [];
  return valuePlaces(raw).flatMap(([, v]) => {
    const ref = isRecord(v) ? asReference(v) : undefined;
    return ref && !('problem' in ref) ? [ref.secret] : [];
  });
}

/** The secret ids the webhook files reference (a file that does not parse is reported later). */
function secretIdsOf(files: readonly ParsedFile[]): string[] {
  const ids = new Set<string>();
  for (const { value, issues } of files) {
    if (issues.length > 0 || kindOf(value) !== 'webhook') continue;
    for (const id of secretIdsIn(value)) ids.add(id);
  }
  return [...ids].sort();
}

/**
 * Reads each secret once (concurrently); every value read is registered for redaction. The
 * client is made only when there is a secret to read.
 */
export async function readSecrets(
  client: () => SecretsManagerClient,
  ids: readonly string[],
): Promise<Map<string, SecretRead>> {
  if (ids.length === 0) return new Map();
  const sm = client();
  const reads = await Promise.all(
    ids.map(async (id): Promise<[string, SecretRead]> => {
      try {
        const out = await sm.send(
          new GetSecretValueCommand({ SecretId: id, VersionStage: AWSCURRENT }),
        );
        if (out.SecretString === undefined) return [id, { problem: 'has no SecretString' }];
        registerSecret(out.SecretString);
        return [id, { text: out.SecretString }];
      } catch (error) {
        if (error instanceof ResourceNotFoundException) return [id, { problem: 'not found' }];
        const name = error instanceof Error ? error.name : 'error';
        // IAM says no the same way for a secret that exists and one that does not.
        if (name === 'AccessDeniedException')
          return [
            id,
            { problem: 'may not be read here: access denied (not granted to the reader)' },
          ];
        return [id, { problem: `could not be read (${name})` }];
      }
    }),
  );
  return new Map(reads);
}

/** A reference, or what is wrong with its form (one line, no value: a reference holds none). */
function asReference(v: Record<string, unknown>): SecretRef | { problem: string } {
  const problem = referenceForm(v);
  if (problem) return { problem };
  return { secret: v.secret as string, ...(v.key !== undefined ? { key: v.key as string } : {}) };
}

/** The value a reference names, or the one-line problem (naming the secret id, not the value). */
function valueOf(ref: SecretRef, reads: SecretReads | undefined): string | { problem: string } {
  const read = reads?.get(ref.secret);
  const named = `secret ${ref.secret}`;
  if (!read) return { problem: `${named} was not read (plan and apply read secrets)` };
  if ('problem' in read) return { problem: `${named} ${read.problem}` };
  if ('unread' in read) return OFFLINE_STAND_IN;
  if (ref.key === undefined) return read.text;
  let json: unknown;
  try {
    json = JSON.parse(read.text);
  } catch {
    json = undefined;
  }
  if (!isRecord(json))
    return { problem: `${named} is not a JSON object, so it has no key "${ref.key}"` };
  const field = json[ref.key];
  if (field === undefined) return { problem: `${named} has no key "${ref.key}"` };
  if (typeof field !== 'string') return { problem: `key "${ref.key}" of ${named} is not a string` };
  registerSecret(field);
  return field;
}

/** Sets a url (`['url']`) or a map entry (`['headers', name]`). */
function setAt(raw: Record<string, unknown>, path: PropertyKey[], value: string): void {
  const parent = path.length === 1 ? raw : (raw[path[0] as string] as Record<string, unknown>);
  parent[path[path.length - 1] as string] = value;
}

type At = (path: readonly PropertyKey[], message: string) => FileIssue;

/**
 * Replaces each reference of a parsed webhook file by its value (in place); a reference that
 * cannot be resolved is an issue at its place. Without `reads` (offline validation) a reference
 * is checked only for what can be known without reading it (referenceForm).
 */
export function resolveSecretRefs(
  raw: unknown,
  reads: SecretReads | undefined,
  at: At,
): FileIssue[] {
  if (!isRecord(raw)) return [];
  const issues: FileIssue[] = [];
  for (const [path, v] of valuePlaces(raw)) {
    if (!isRecord(v)) continue;
    const ref = asReference(v);
    if ('problem' in ref) {
      issues.push(at(path, ref.problem));
      // The schema's own word on this union ("Invalid input") would only repeat it.
      setAt(raw, path, OFFLINE_STAND_IN);
      continue;
    }
    // Offline, a URL stands in: the rules after this one check what a value looks like.
    const value = reads ? valueOf(ref, reads) : OFFLINE_STAND_IN;
    // Unresolved, the reference stays: the schema takes it, so its problem is the only one said.
    if (typeof value !== 'string') {
      issues.push(at(path, value.problem));
      continue;
    }
    setAt(raw, path, value);
  }
  return issues;
}

const NOT_ALLOWED =
  'is not among the secrets the stack allows the sync to read (cloudops:dashboardWebhookSecrets)';

/**
 * The secrets the files reference, each read once; undefined without a client (offline). With
 * `allowed` (the deployed sync: the secrets its stack granted), a reference to any other secret
 * is refused and then nothing is read: the role also reads the service's own credentials, which
 * a bucket writer must not be able to send to a webhook of their choosing.
 */
export async function secretsFor(
  files: readonly ParsedFile[],
  client: (() => SecretsManagerClient) | undefined,
  allowed?: readonly string[],
): Promise<SecretReads | undefined> {
  if (!client) return undefined;
  const ids = secretIdsOf(files);
  const refused = new Set(
    allowed ? ids.filter((id) => !allowed.some((grant) => grantCovers(grant, id))) : [],
  );
  if (refused.size === 0) return readSecrets(client, ids);
  return new Map(
    ids.map((id): [string, SecretRead] => [
      id,
      refused.has(id) ? { problem: NOT_ALLOWED } : { unread: true },
    ]),
  );
}
