/**
 * The JSON Schema of a dashboards folder's files, for editors (`cloudops dashboards schema`,
 * dashboards/.schema.json): the zod schemas of file-schema.ts and kinds-schema.ts, with what an
 * editor shows for each field. Those texts live here, not on the zod schemas, so that the sync
 * function, which validates files but never prints a schema, does not carry them.
 */
import * as z from 'zod/mini';
import {
  CONSECUTIVE_WINDOWS_MAX,
  dashboardFile,
  EMAIL_RECIPIENTS_MAX,
  serviceId,
  USER_TAGS_MAX,
} from './file-schema';
import { savedSearchFile, webhookFile } from './kinds-schema';

/**
 * What an editor shows, by place in the schema: a text for the node itself (`$`), and for its
 * properties by name, `[]` an array's items, `{}` a map's values, `|0`, `|1` a union's branches.
 */
interface Docs {
  readonly [place: string]: Docs | string;
}

const SCHEMA_FIELD = 'Where editors find this schema; ignored';
const SOURCE_NAME = 'Name of a source of the service, resolved to its sourceId once per run';
const SOURCE_ID = 'Id of a source of the service (24 hex characters); or name it with `source:`';
const WHERE_LANGUAGE = 'Language of `where`: sql or lucene (required by the current service)';

const ALERT: Docs = {
  $: 'An alert (on line, stacked_bar and number tiles)',
  name: 'Unique on its tile; identifies the alert across syncs',
  threshold: 'Threshold (the lower bound for between / not_between)',
  thresholdMax: 'Upper bound, with between / not_between only; >= threshold',
  thresholdType: 'How the value is compared with the threshold',
  interval: 'Evaluation window',
  numConsecutiveWindows: `Fire only after this many windows in a row (1–${CONSECUTIVE_WINDOWS_MAX}); the alert is PENDING until then`,
  scheduleOffsetMinutes:
    'Shift each window by this many minutes (below the interval); not with scheduleStartAt',
  scheduleStartAt: 'Align the windows to this ISO date-time; not with scheduleOffsetMinutes',
  channel: {
    $: 'Where the alert notifies: a webhook (by name or id) or email recipients, one of them',
    type: 'Channel type: webhook (a webhook of the service) or email (management API)',
    webhookId: 'Id of a webhook of the service (checked against the webhooks list)',
    webhook: 'Name of a webhook of the service, resolved to its id once per run',
    emailRecipients: `Addresses an email channel notifies (1–${EMAIL_RECIPIENTS_MAX}, with type email)`,
  },
  message: 'Text sent with the notification',
};

const SERIES: Docs = {
  $: 'A series (the spec form): the service stores it in the config form',
  type: 'Series type; all series of one tile share it',
  source: SOURCE_NAME,
  sourceId: SOURCE_ID,
  dataSource: 'Data source of the spec snapshot (e.g. events); not used by the current service',
  aggFn: 'Aggregation (not on search or markdown series)',
  field: 'Column or expression aggregated (not with count)',
  alias: 'Legend name of the series',
  where: 'Filter; sent as "" when absent',
  whereLanguage: WHERE_LANGUAGE,
  groupBy: 'Group-by columns (time and table series, at most 10; order matters)',
  level: 'Quantile level, with aggFn quantile',
  metricName: 'Metric name (metric sources)',
  metricDataType: 'Metric data type (metric sources)',
  numberFormat: 'Number format, passed through',
  displayType: 'Chart kind of a time series (default line)',
  sortOrder: 'Sort order of a table series',
  fields: 'Columns shown by a search series',
  content: 'Text of a markdown series',
};

const SELECT_ITEM: Docs = {
  $: 'One aggregation of a config tile',
  aggFn: 'Aggregation (required except on heatmap tiles)',
  valueExpression: 'What is aggregated; required except with count, refused with count',
  alias: 'Legend name',
  level: 'Quantile level (0.5, 0.9, 0.95 or 0.99), with aggFn quantile only',
  where: 'Filter of this select item',
  whereLanguage: WHERE_LANGUAGE,
  metricName: 'Metric name (metric sources)',
  metricType: 'Metric type (metric sources)',
};

// colorRules', backgroundChart's and onClick's own fields are described in lib/schemas.
const TILE_CONFIG: Docs = {
  $: 'A tile in the config form (what the service answers)',
  displayType: 'Chart kind; chooses the other fields',
  source: SOURCE_NAME,
  sourceId: SOURCE_ID,
  select: {
    $: 'Aggregations (1–20; pie, bar, number: 1), or the columns of a search tile',
    '|0': { '[]': SELECT_ITEM },
  },
  groupBy: 'Group-by expression (not on number tiles)',
  where: 'Filter of the whole tile',
  whereLanguage: WHERE_LANGUAGE,
  asRatio: 'Show the first select item over the second (line, stacked_bar, table; 2 items)',
  markdown: 'Text of a markdown tile',
  numberFormat: 'Number format, passed through',
  configType: 'Raw-SQL variant: needs connectionId + sqlTemplate',
  connectionId: 'Connection of a raw-SQL tile',
  sqlTemplate: 'Query of a raw-SQL tile',
  fitYAxisToData: 'line: fit the y axis to the data',
  color: 'number: colour of the value',
  colorRules: {
    $: 'number: colour rules `{ operator, value, color, label? }`, the last match wins',
  },
  backgroundChart: { $: 'number: a chart behind the value, `{ type: line | area, color? }`' },
  onClick: { $: 'table: `{ type: external, urlTemplate }`, opened on a click' },
  limit: 'pie, bar: how many groups are shown',
  orderBy: 'pie, bar, table: ordering expression',
};

const DASHBOARD: Docs = {
  $schema: SCHEMA_FIELD,
  kind: 'What the file declares: dashboard (the default), webhook or savedSearch',
  key: 'Identity of the dashboard; default: the file path without extension',
  name: 'Dashboard name',
  services:
    'Services this dashboard is applied to (ids from CLOUDOPS_SERVICE_ID; write a name as a ' +
    '`${VARIABLE}`); default: the configured service (--service, else the first)',
  tags: `Tags (at most ${USER_TAGS_MAX}, 32 characters each; "cloudops*" is reserved)`,
  tiles: {
    $: 'Tiles',
    '[]': {
      $: 'A tile: exactly one of series, config or markdown',
      key: 'Stable identity of the tile: with it, renaming the tile keeps its id and alerts',
      name: 'Title; unique within the dashboard',
      x: 'Column, 0–23',
      y: 'Row, >= 0',
      w: 'Width in columns, 1–24; x + w <= 24',
      h: 'Height in rows, >= 1',
      asRatio: 'Series form: show the first series over the second',
      series: { $: 'The query, spec form', '[]': SERIES },
      config: TILE_CONFIG,
      markdown: 'A markdown tile: its text (instead of series/config)',
      alerts: { $: 'Alerts watching this tile', '[]': ALERT },
    },
  },
  filters: {
    $: 'Dashboard filters; absent: the service keeps the ones it has',
    '[]': {
      $: 'A dashboard filter; its source by `source: <name>` or `sourceId`',
      name: 'Label of the filter',
      expression: 'Column or expression whose values the filter offers',
      type: 'Filter type, as the service names it',
      source: SOURCE_NAME,
      sourceId: SOURCE_ID,
      appliesToSourceIds: 'Other sources the filter also applies to, by id (August 2026)',
    },
  },
};

const SECRET_REF: Docs = {
  $: 'A value read from Secrets Manager at plan time (never shown or stored)',
  secret: 'Secrets Manager secret id or ARN',
  key: 'Field of a JSON secret; absent: the whole SecretString',
};

const writeOnlyMap = (what: string): Docs => ({
  $: `${what}s, each value a \${VARIABLE} or { secret }; write-only: resent when their digest changes`,
  '{}': { '|0': `A ${what} value: a \${VARIABLE}`, '|1': SECRET_REF },
});

const WEBHOOK: Docs = {
  $schema: SCHEMA_FIELD,
  kind: 'This file declares a webhook',
  key: 'Identity of the webhook; default: the file path without extension',
  name: 'Name; alerts name it with `webhook:`',
  service: 'slack, incidentio or generic (slack takes no body, headers or queryParams)',
  url: {
    '|0': 'Where it posts, as a `${VARIABLE}` (a URL is often a credential)',
    '|1': SECRET_REF,
  },
  description: 'Description shown by the service',
  body: 'Body template (not with slack)',
  headers: writeOnlyMap('header'),
  queryParams: writeOnlyMap('query parameter'),
};

const SAVED_SEARCH: Docs = {
  $schema: SCHEMA_FIELD,
  kind: 'This file declares a saved search',
  key: 'Identity of the saved search; default: the file path without extension',
  name: 'Name of the saved search',
  source: 'Name of a source of the service, resolved to its sourceId',
  select: 'Columns shown',
  where: 'Filter',
  whereLanguage: 'Language of `where`: sql or lucene',
  orderBy: 'Ordering expression',
  tags: `Tags (at most ${USER_TAGS_MAX}; "cloudops*" is reserved)`,
  filters: {
    $: 'Filters, each `{ condition }`',
    '[]': {
      $: 'A filter of the search',
      type: 'Filter language: sql (the default)',
      condition: '<column> IN (...)',
    },
  },
  alerts: { $: 'Alerts on this search, written like tile alerts (`webhook: <name>`)', '[]': ALERT },
};

type JsonSchema = { [key: string]: unknown };

/** `node` with the texts of `docs`; a place the schema does not have is a bug here, so it throws. */
function described(node: JsonSchema, docs: Docs | string, where: string): JsonSchema {
  if (typeof docs === 'string') return { description: docs, ...node };
  const out: JsonSchema = docs.$ !== undefined ? { description: docs.$, ...node } : { ...node };
  for (const [place, inner] of Object.entries(docs)) {
    if (place === '$') continue;
    const at = /^[|[{]/.test(place) ? `${where}${place}` : `${where}.${place}`;
    const [holder, key] = childOf(out, place);
    const child = holder?.[key] as JsonSchema | undefined;
    if (!holder || !child) throw new Error(`dashboard file JSON Schema: no ${at}`);
    holder[key] = described(child, inner, at);
  }
  return out;
}

/** Where a place's node sits (copied, so the schema zod returned is not changed). */
function childOf(node: JsonSchema, place: string): [JsonSchema | undefined, string] {
  if (place === '[]') return [node, 'items'];
  if (place === '{}') return [node, 'additionalProperties'];
  if (place.startsWith('|')) {
    const anyOf = Array.isArray(node.anyOf) ? [...(node.anyOf as unknown[])] : undefined;
    if (anyOf) node.anyOf = anyOf;
    return [anyOf as unknown as JsonSchema, place.slice(1)];
  }
  const properties = node.properties as JsonSchema | undefined;
  if (!properties) return [undefined, place];
  node.properties = { ...properties };
  return [node.properties as JsonSchema, place];
}

function jsonSchemaOf(schema: z.core.$ZodType, docs: Docs): JsonSchema {
  const generated = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    unrepresentable: 'any',
    // Editors see the file before `${NAME}` is replaced: a service is an id or a placeholder.
    override: ({ zodSchema, jsonSchema }) => {
      if (zodSchema !== serviceId) return;
      const { format, pattern, ...rest } = jsonSchema;
      for (const k of Object.keys(jsonSchema)) delete jsonSchema[k];
      Object.assign(jsonSchema, rest, {
        anyOf: [{ format, pattern }, { pattern: '^\\$\\{[A-Za-z_][A-Za-z0-9_]*\\}$' }],
      });
    },
  });
  return described(generated, docs, '');
}

/** JSON Schema of a dashboard file, for editors (`cloudops dashboards schema`). */
export function dashboardFileJsonSchema(): Record<string, unknown> {
  return {
    ...jsonSchemaOf(dashboardFile, DASHBOARD),
    title: 'cloudops dashboard file',
    description:
      'One dashboard per file. Tiles are matched to the service by `key`, else by name, so ' +
      'renaming a tile without a key replaces it (and deletes the alerts watching it). ' +
      'x + w must be <= 24; tiles must not overlap. `${NAME}` in any value is a variable.',
  };
}

/**
 * JSON Schema of every file a dashboards folder holds, for editors (`cloudops dashboards
 * schema`): one of a dashboard (no `kind`, or `kind: dashboard`), a webhook, a saved search.
 */
export function folderFileJsonSchema(): Record<string, unknown> {
  const { $schema, title: _t, description: _d, ...dashboard } = dashboardFileJsonSchema();
  const [webhook, search] = [
    jsonSchemaOf(webhookFile, WEBHOOK),
    jsonSchemaOf(savedSearchFile, SAVED_SEARCH),
  ].map(({ $schema: _s, ...rest }) => rest);
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
