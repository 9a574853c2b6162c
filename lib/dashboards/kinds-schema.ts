/**
 * The other kinds of file a dashboards folder holds besides dashboards (`kind:` at the top):
 * `webhook` and `savedSearch`, with the API's field names. Strict, like the dashboard file, so a
 * typo'd field is an error. Rules across fields (slack's refusals, secrets written as variables or
 * secret references) live in validate.ts and webhook-secrets.ts.
 */
import * as z from 'zod/mini';
import { DASHBOARD_LIMITS } from '../schemas';
import { dashboardKey, fileAlert, USER_TAGS_MAX, WHERE_LANGUAGES } from './file-schema';

export const FILE_KINDS = ['dashboard', 'webhook', 'savedSearch'] as const;
export type FileKind = (typeof FILE_KINDS)[number];

export const WEBHOOK_FILE_SERVICES = ['slack', 'incidentio', 'generic'] as const;

/** A value read from Secrets Manager (webhook-secrets.ts resolves it). */
export const secretRef = z.strictObject({
  secret: z.string().check(z.minLength(1)),
  key: z.optional(z.string().check(z.minLength(1))),
});

export type SecretRef = z.infer<typeof secretRef>;

/** A write-only value: a `${VARIABLE}` or a secret reference. */
const secretValue = () => z.union([z.string(), secretRef]);

const stringMap = () => z.record(z.string().check(z.minLength(1)), secretValue());

export const webhookFile = z.lazy(() =>
  z.strictObject({
    $schema: z.optional(z.string()),
    kind: z.literal('webhook'),
    key: z.optional(dashboardKey),
    name: z.string().check(z.trim(), z.minLength(1), z.maxLength(1024)),
    service: z.enum(WEBHOOK_FILE_SERVICES),
    url: z.union([z.string().check(z.minLength(1)), secretRef]),
    description: z.optional(z.string()),
    body: z.optional(z.string()),
    headers: z.optional(stringMap()),
    queryParams: z.optional(stringMap()),
  }),
);

export type WebhookFile = z.infer<typeof webhookFile>;

/** `<column> IN (...)`: the one filter form a saved-search write takes. */
const IN_CONDITION = /^\s*\S.*?\s+IN\s*\(.*\)\s*$/is;

const searchFilter = z.lazy(() =>
  z.strictObject({
    type: z.optional(z.literal('sql')),
    condition: z.string().check(z.regex(IN_CONDITION, 'must have the form <column> IN (...)')),
  }),
);

export const savedSearchFile = z.lazy(() =>
  z.strictObject({
    $schema: z.optional(z.string()),
    kind: z.literal('savedSearch'),
    key: z.optional(dashboardKey),
    name: z.string().check(z.trim(), z.minLength(1)),
    source: z.string().check(z.minLength(1)),
    select: z.optional(z.string()),
    where: z.optional(z.string()),
    whereLanguage: z.optional(z.enum(WHERE_LANGUAGES)),
    orderBy: z.optional(z.string()),
    tags: z.optional(
      z
        .array(z.string().check(z.minLength(1), z.maxLength(DASHBOARD_LIMITS.tagLengthMax)))
        .check(z.maxLength(USER_TAGS_MAX)),
    ),
    filters: z.optional(z.array(searchFilter)),
    alerts: z.optional(z.array(fileAlert)),
  }),
);

export type SavedSearchFile = z.infer<typeof savedSearchFile>;

/** The kind a parsed file declares: `dashboard` when `kind` is absent; undefined when unknown. */
export function kindOf(value: unknown): FileKind | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'dashboard';
  const kind = (value as Record<string, unknown>).kind;
  if (kind === undefined) return 'dashboard';
  return FILE_KINDS.find((k) => k === kind);
}
