/**
 * The webhook writes of a saved plan (`plan --out FILE`, then `apply FILE`). The plan file holds,
 * per webhook it creates or updates, what its file wrote: name, service, description and body
 * (shown by the plan anyway), and its url, headers and query parameters as references only
 * (`${VARIABLE}` texts, `{ secret, key }`), each with a digest of the value it had when planned
 * (value-digest.ts: salted per plan, memory-hard), never the value.
 *
 * apply re-resolves every reference before any write: variables as the CLI reads them, each
 * secret once for the whole run. A value that cannot be read, or whose digest is not the
 * planned one, refuses the apply: one line per value, naming the webhook, the field and the
 * reference, and nothing is written.
 */
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import * as z from 'zod/mini';
import { stringRecord } from '../schemas/builders';
import { ValidationError } from '../errors';
import { formatPath } from '../format-issues';
import { registerSecret } from '../redact';
import { secretRef, WEBHOOK_FILE_SERVICES } from './kinds-schema';
import type { ObjectChange } from './objects-plan';
import { substituteVars, variablesIn } from './parse';
import type { DesiredWebhook, TemplateValue } from './types';
import { matchesPlanDigest, planValueDigest } from './value-digest';
import {
  readSecrets,
  resolveSecretRefs,
  secretIdsIn,
  valuePlaces,
  type WebhookPath,
} from './webhook-secrets';

const templateValue = z.union([z.string(), secretRef]);

export const savedWebhook = z.object({
  key: z.string(),
  sourceFile: z.string(),
  name: z.string(),
  service: z.enum(WEBHOOK_FILE_SERVICES),
  description: z.optional(z.string()),
  body: z.optional(z.string()),
  templates: z.object({
    url: z.optional(templateValue),
    headers: z.optional(stringRecord(z.string(), templateValue)),
    queryParams: z.optional(stringRecord(z.string(), templateValue)),
  }),
  /** Digest of each value, by place: `url`, `headers.<name>`, `queryParams.<name>`. */
  digests: stringRecord(z.string(), z.string()),
});

export type SavedWebhook = z.infer<typeof savedWebhook>;

/** Where a value sits: the path in the file, and the place its digest is salted with. */
type Place = { path: WebhookPath; name: string };

function placesOf(templates: SavedWebhook['templates']): Place[] {
  return valuePlaces(templates)
    .filter(([, template]) => template !== undefined)
    .map(([path]) => ({ path, name: formatPath(path) }));
}

type Placed<T> = { url?: T; headers?: Record<string, T>; queryParams?: Record<string, T> };

/** What sits at a place: a value of a webhook, or a template of a saved one. */
const at = <T>(w: Placed<T>, p: Place): T | undefined =>
  p.path[0] === 'url' ? w.url : w[p.path[0]]?.[p.path[1]];

const placeSalt = (key: string, place: Place) => `${key}\0${place.name}`;

/** The webhooks a plan writes, as a plan file keeps them (`plan --out`). */
export function savedWebhooksOf(
  changes: readonly ObjectChange[] | undefined,
  webhooks: readonly DesiredWebhook[],
  salt: string,
): SavedWebhook[] {
  const writes = new Set(
    (changes ?? [])
      .filter((c) => c.kind === 'webhook' && (c.action === 'create' || c.action === 'update'))
      .map((c) => c.key),
  );
  return webhooks
    .filter((w) => writes.has(w.key))
    .map((w) => {
      const digests: Record<string, string> = {};
      for (const place of placesOf(w.templates)) {
        const value = at(w, place);
        if (value !== undefined)
          digests[place.name] = planValueDigest(salt, placeSalt(w.key, place), value);
      }
      return {
        key: w.key,
        sourceFile: w.sourceFile,
        name: w.name,
        service: w.service,
        ...(w.description !== undefined ? { description: w.description } : {}),
        ...(w.body !== undefined ? { body: w.body } : {}),
        templates: w.templates,
        digests,
      };
    });
}

/** The reference a place was written with, as a line names it (never a value). */
function referenceOf(template: TemplateValue | undefined): string {
  if (template === undefined) return 'no reference';
  if (typeof template !== 'string')
    return `secret ${template.secret}${template.key !== undefined ? `, key ${template.key}` : ''}`;
  const names = variablesIn(template);
  return names.length === 0
    ? 'no variable'
    : `${names.length > 1 ? 'variables' : 'variable'} ${names.join(', ')}`;
}

export interface SavedWebhookSources {
  /** The plan's salt (the plan file's). */
  salt: string | undefined;
  /** `${NAME}` values, as the CLI reads them (CLOUDOPS_VAR_NAME, --var). */
  vars: Readonly<Record<string, string>>;
  /** Where `{ secret }` values are read; made only when a reference names a secret. */
  secrets: () => SecretsManagerClient;
}

/** One plan's webhook writes, with the webhooks the plan file keeps for it. */
export interface SavedWebhookWrites {
  changes: readonly ObjectChange[] | undefined;
  webhooks: readonly SavedWebhook[] | undefined;
}

/**
 * The webhooks each plan writes, their values read again and checked against the plan's
 * digests (by key, one map per plan). Throws a ValidationError, having read only secrets,
 * when a value is missing, unreadable or changed, or the plan file keeps no values.
 */
export async function resolveSavedWebhooks(
  plans: readonly SavedWebhookWrites[],
  sources: SavedWebhookSources,
): Promise<Map<string, DesiredWebhook>[]> {
  const problems: string[] = [];
  const drafts = plans.map((p) => draftsOf(p, sources, problems));
  const ids = [...new Set(drafts.flat().flatMap((d) => secretIdsIn(d.raw)))].sort();
  const reads = await readSecrets(sources.secrets, ids);
  const resolved = drafts.map(
    (list) =>
      new Map(
        list.flatMap((draft) => {
          const webhook = resolvedWebhook(draft, reads, sources.salt ?? '', problems);
          return webhook ? [[webhook.key, webhook] as const] : [];
        }),
      ),
  );
  // One line per value; nothing was read from or written to the service.
  if (problems.length === 1) throw new ValidationError(`${problems[0]}; nothing was applied`);
  if (problems.length > 1)
    throw new ValidationError(`nothing was applied:\n  ${problems.join('\n  ')}`);
  return resolved;
}

interface Draft {
  saved: SavedWebhook;
  /** url, headers and queryParams: variables substituted, secret references still in place. */
  raw: Record<string, unknown>;
  /** Places with a variable that is not set. */
  unset: Set<string>;
}

function draftsOf(plan: SavedWebhookWrites, sources: SavedWebhookSources, problems: string[]) {
  const byKey = new Map((plan.webhooks ?? []).map((w) => [w.key, w]));
  const drafts: Draft[] = [];
  for (const c of plan.changes ?? []) {
    if (c.kind !== 'webhook' || (c.action !== 'create' && c.action !== 'update')) continue;
    const saved = byKey.get(c.key ?? '');
    if (!saved || sources.salt === undefined) {
      problems.push(
        `webhook "${c.name}": the plan file keeps no values for it (saved by an older cloudops): re-plan`,
      );
      continue;
    }
    const raw = structuredClone(saved.templates) as Record<string, unknown>;
    const unset = new Set<string>();
    substituteVars(raw, sources.vars, (path, name) => {
      unset.add(formatPath(path));
      problems.push(
        `webhook "${saved.name}" ${formatPath(path)} (variable ${name}): not set (CLOUDOPS_VAR_${name} or --var ${name}=...)`,
      );
    });
    drafts.push({ saved, raw, unset });
  }
  return drafts;
}

/** The webhook as apply writes it, or undefined with its problems added. */
function resolvedWebhook(
  draft: Draft,
  reads: Awaited<ReturnType<typeof readSecrets>>,
  salt: string,
  problems: string[],
): DesiredWebhook | undefined {
  const { saved, raw, unset } = draft;
  const line = (place: Place, what: string) =>
    `webhook "${saved.name}" ${place.name} (${referenceOf(at(saved.templates, place))}): ${what}`;
  const before = problems.length;
  const places = placesOf(saved.templates);
  const unread = new Set<string>();
  resolveSecretRefs(raw, reads, (path, message) => {
    const name = formatPath(path);
    const place = places.find((p) => p.name === name);
    unread.add(name);
    problems.push(place ? line(place, message) : `webhook "${saved.name}" ${name}: ${message}`);
    return { file: saved.sourceFile, path: name, message };
  });
  const values = raw as Pick<DesiredWebhook, 'url' | 'headers' | 'queryParams'>;
  for (const place of places) {
    if (unset.has(place.name) || unread.has(place.name)) continue;
    const value = at(values, place);
    if (typeof value !== 'string') continue;
    // Masked wherever a text could echo it, like the values of a folder's files.
    registerSecret(value);
    const digest = saved.digests[place.name];
    if (!digest || !matchesPlanDigest(digest, salt, placeSalt(saved.key, place), value))
      problems.push(line(place, 'changed since the plan: re-plan'));
  }
  if (problems.length > before) return undefined;
  const { digests: _digests, ...fields } = saved;
  return {
    ...fields,
    url: typeof values.url === 'string' ? values.url : '',
    ...(values.headers ? { headers: values.headers } : {}),
    ...(values.queryParams ? { queryParams: values.queryParams } : {}),
  };
}
