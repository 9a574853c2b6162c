import type { FileTile } from './file-schema';

/**
 * A tile as the files want it, defaults applied (the file schema's tile, optionals filled).
 * `key`, when given, is the tile's identity across renames (else its name is).
 */
export type DesiredTile = Required<Omit<FileTile, 'key'>> & { key?: string };

/** One validated dashboard file. `tags` are the user's tags, without the ownership marker. */
export interface DesiredDashboard {
  key: string;
  sourceFile: string;
  name: string;
  tags: string[];
  tiles: DesiredTile[];
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
}
