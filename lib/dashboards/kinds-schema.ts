/**
 * The other kinds of file a dashboards folder holds besides dashboards (`kind:` at the top):
 * `webhook` and `savedSearch`, with the API's field names. Strict, like the dashboard file, so a
 * typo'd field is an error. Rules across fields (slack's refusals, secrets written as variables or
 * secret references) live in validate.ts and webhook-secrets.ts.
 */
import * as z from 'zod/mini';
import { DASHBOARD_LIMITS } from '../schemas';
import { dashboardFileJsonSchema, dashboardKey, fileAlert, WHERE_LANGUAGES } from './file-schema';
import { MARKER_TAG_COUNT } from './ownership';

export const FILE_KINDS = ['dashboard', 'webhook', 'savedSearch'] as const;
export type FileKind = (typeof FILE_KINDS)[number];

export const WEBHOOK_FILE_SERVICES = ['slack', 'incidentio', 'generic'] as const;

const d = (text: string) => z.describe(text);

/** A value read from Secrets Manager (webhook-secrets.ts resolves it). */
export const secretRef = z
  .strictObject({
    secret: z.string().check(z.minLength(1), d('Secrets Manager secret id or ARN')),
    key: z.optional(
      z.string().check(z.minLength(1), d('Field of a JSON secret; absent: the whole SecretString')),
    ),
  })
  .check(d('A value read from Secrets Manager at plan time (never shown or stored)'));

export type SecretRef = z.infer<typeof secretRef>;

/** A write-only value: a `${VARIABLE}` or a secret reference. */
const secretValue = (what: string) =>
  z.union([z.string().check(d(`${what}: a \${VARIABLE}`)), secretRef]);

const stringMap = (what: string) =>
  z
    .record(z.string().check(z.minLength(1)), secretValue(`A ${what} value`))
    .check(
      d(
        `${what}s, each value a \${VARIABLE} or { secret }; write-only: resent when their digest changes`,
      ),
    );

export const webhookFile = z.lazy(() =>
  z.strictObject({
    $schema: z.optional(z.string().check(d('Where editors find this schema; ignored'))),
    kind: z.literal('webhook').check(d('This file declares a webhook')),
    key: z
      .optional(dashboardKey)
      .check(d('Identity of the webhook; default: the file path without extension')),
    name: z
      .string()
      .check(
        z.trim(),
        z.minLength(1),
        z.maxLength(1024),
        d('Name; alerts name it with `webhook:`'),
      ),
    service: z
      .enum(WEBHOOK_FILE_SERVICES)
      .check(d('slack, incidentio or generic (slack takes no body, headers or queryParams)')),
    url: z.union([
      z
        .string()
        .check(
          z.minLength(1),
          d('Where it posts, as a `${VARIABLE}` (a URL is often a credential)'),
        ),
      secretRef,
    ]),
    description: z.optional(z.string().check(d('Description shown by the service'))),
    body: z.optional(z.string().check(d('Body template (not with slack)'))),
    headers: z.optional(stringMap('header')),
    queryParams: z.optional(stringMap('query parameter')),
  }),
);

export type WebhookFile = z.infer<typeof webhookFile>;

/** `<column> IN (...)`: the one filter form a saved-search write takes. */
const IN_CONDITION = /^\s*\S.*?\s+IN\s*\(.*\)\s*$/is;

const searchFilter = z.lazy(() =>
  z
    .strictObject({
      type: z.optional(z.literal('sql').check(d('Filter language: sql (the default)'))),
      condition: z
        .string()
        .check(
          z.regex(IN_CONDITION, 'must have the form <column> IN (...)'),
          d('<column> IN (...)'),
        ),
    })
    .check(d('A filter of the search')),
);

/** The marker tags cloudops adds count against the service's 50-tag limit. */
const USER_TAGS_MAX = DASHBOARD_LIMITS.tagsMax - MARKER_TAG_COUNT;

export const savedSearchFile = z.lazy(() =>
  z.strictObject({
    $schema: z.optional(z.string().check(d('Where editors find this schema; ignored'))),
    kind: z.literal('savedSearch').check(d('This file declares a saved search')),
    key: z
      .optional(dashboardKey)
      .check(d('Identity of the saved search; default: the file path without extension')),
    name: z.string().check(z.trim(), z.minLength(1), d('Name of the saved search')),
    source: z
      .string()
      .check(z.minLength(1), d('Name of a source of the service, resolved to its sourceId')),
    select: z.optional(z.string().check(d('Columns shown'))),
    where: z.optional(z.string().check(d('Filter'))),
    whereLanguage: z.optional(
      z.enum(WHERE_LANGUAGES).check(d('Language of `where`: sql or lucene')),
    ),
    orderBy: z.optional(z.string().check(d('Ordering expression'))),
    tags: z.optional(
      z
        .array(z.string().check(z.minLength(1), z.maxLength(DASHBOARD_LIMITS.tagLengthMax)))
        .check(
          z.maxLength(USER_TAGS_MAX),
          d(`Tags (at most ${USER_TAGS_MAX}; "cloudops*" is reserved)`),
        ),
    ),
    filters: z.optional(z.array(searchFilter).check(d('Filters, each `{ condition }`'))),
    alerts: z.optional(
      z
        .array(fileAlert)
        .check(d('Alerts on this search, written like tile alerts (`webhook: <name>`)')),
    ),
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

/** JSON Schema of the non-dashboard kinds (the dashboards' schema joins them in a `oneOf`). */
export function kindJsonSchemas(): Record<string, unknown>[] {
  return [webhookFile, savedSearchFile].map((schema) => {
    const { $schema: _s, ...rest } = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      unrepresentable: 'any',
    });
    return rest;
  });
}

/**
 * JSON Schema of every file a dashboards folder holds, for editors (`cloudops dashboards
 * schema`): one of a dashboard (no `kind`, or `kind: dashboard`), a webhook, a saved search.
 */
export function folderFileJsonSchema(): Record<string, unknown> {
  const { $schema, title: _t, description: _d, ...dashboard } = dashboardFileJsonSchema();
  const [webhook, search] = kindJsonSchemas();
  return {
    $schema,
    title: 'cloudops dashboards folder file',
    description:
      'One object per file, chosen by `kind`: a dashboard (the default), a webhook or a saved ' +
      'search. Tiles are matched to the service by `key`, else by name, so renaming a tile ' +
      'without a key replaces it (and deletes the alerts watching it). x + w must be <= 24; ' +
      'tiles must not overlap. `${NAME}` in any value is a variable; a webhook takes its URL, ' +
      'headers and query parameters only from variables or `{ secret: <id>, key?: <field> }`.',
    oneOf: [
      { title: 'dashboard', ...dashboard },
      { title: 'webhook', ...webhook },
      { title: 'savedSearch', ...search },
    ],
  };
}
