import type { FileAlert, FileDashboardFilter, FileSeries, FileTileConfig } from './file-schema';
import type { SecretRef } from './kinds-schema';

/**
 * A tile as the files want it, defaults applied. Exactly one query form is set: `series`
 * (non-empty) or `config` (a markdown tile is a `config` of displayType markdown). `source:` /
 * `webhook:` names are still names until resolve.ts turns them into ids.
 */
export interface DesiredTile {
  /** Stable identity across renames (optional in the file). */
  key?: string;
  name: string;
  x: number;
  y: number;
  w: number;
  h: number;
  asRatio: boolean;
  /** Spec form; `[]` when the tile is written in the config form. */
  series: FileSeries[];
  config?: FileTileConfig;
  alerts: FileAlert[];
}

/** One validated dashboard file. `tags` are the user's tags, without the ownership marker. */
export interface DesiredDashboard {
  key: string;
  sourceFile: string;
  name: string;
  tags: string[];
  tiles: DesiredTile[];
  /** Dashboard filters; absent: the file leaves them to the service (never sent, never diffed). */
  filters?: FileDashboardFilter[];
  /** The services the file names (`services:`); absent: the configured/--service service. */
  services?: string[];
}

/** One problem in one file: `file:line:column path: message`. */
export interface FileIssue {
  file: string;
  line?: number;
  column?: number;
  /** Field path such as `tiles[2].w`, or '' for the whole file. */
  path: string;
  message: string;
}

/** A file as read from a directory or an S3 prefix; `file` is relative to the root. */
export interface SourceFile {
  file: string;
  text: string;
  /** Set (with an empty text) when the file was too large to read. */
  bytes?: number;
}

/**
 * One validated `kind: webhook` file. `url`, `headers` and `queryParams` hold resolved variable
 * values (registered as secrets): never shown, saved or logged.
 */
export interface DesiredWebhook {
  key: string;
  sourceFile: string;
  name: string;
  service: 'slack' | 'incidentio' | 'generic';
  url: string;
  description?: string;
  body?: string;
  /** Absent: left as the service holds them (they cannot be read back). */
  headers?: Record<string, string>;
  queryParams?: Record<string, string>;
  /** The URL, headers and query parameters as written: variables or secret references, no values. */
  templates: {
    url?: TemplateValue;
    headers?: Record<string, TemplateValue>;
    queryParams?: Record<string, TemplateValue>;
  };
}

/** A write-only value as a file writes it: a `${VARIABLE}` text or a secret reference. */
export type TemplateValue = string | SecretRef;

/** One validated `kind: savedSearch` file; `source` is a name until resolved to `sourceId`. */
export interface DesiredSavedSearch {
  key: string;
  sourceFile: string;
  name: string;
  source?: string;
  sourceId?: string;
  select?: string;
  where?: string;
  whereLanguage?: 'sql' | 'lucene';
  orderBy?: string;
  tags: string[];
  filters?: { type?: 'sql'; condition: string }[];
  alerts: FileAlert[];
}

/** The webhooks and saved searches a folder declares (beside its dashboards). */
export interface FolderObjects {
  webhooks: DesiredWebhook[];
  savedSearches: DesiredSavedSearch[];
}
