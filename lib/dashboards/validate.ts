/**
 * Validates every file and collects every problem before anything is written: syntax,
 * the zod schema (types, bounds, tag limits, known aggFn/type, alert fields), then the rules
 * a schema cannot state (x + w, overlaps, unique names, one series type per tile, reserved
 * tags) and duplicate identities across files.
 */
import type * as z from 'zod';
import { DASHBOARD_LIMITS } from '../schemas';
import { formatPath } from '../format-issues';
import { dashboardFile, dashboardKey, type DashboardFile } from './file-schema';
import { isReservedTag } from './ownership';
import { parseFile, substituteVars } from './parse';
import type { DesiredDashboard, FileIssue, SourceFile } from './types';

export interface ValidateOptions {
  /** Values for `${NAME}` placeholders in the files. */
  readonly vars?: Readonly<Record<string, string>>;
}

export interface ValidationResult {
  dashboards: DesiredDashboard[];
  issues: FileIssue[];
}

/** `team/checkout.yaml` -> `team/checkout`: the identity of a file without an explicit key. */
export function deriveKey(file: string): string {
  return file
    .replace(/\\/g, '/')
    .replace(/^\.\//, '')
    .replace(/\.(ya?ml|json)$/i, '');
}

export function formatFileIssue(issue: FileIssue): string {
  const where = issue.line
    ? `${issue.file}:${issue.line}${issue.column ? `:${issue.column}` : ''}`
    : issue.file;
  return `${where} ${issue.path ? `${issue.path}: ` : ''}${issue.message}`;
}

export function validateFiles(
  files: readonly SourceFile[],
  options: ValidateOptions = {},
): ValidationResult {
  const issues: FileIssue[] = [];
  const dashboards: DesiredDashboard[] = [];
  const seen = new Map<string, string>();

  for (const source of [...files].sort((a, b) => a.file.localeCompare(b.file))) {
    const parsed = parseFile(source);
    if (parsed.issues.length > 0) {
      issues.push(...parsed.issues);
      continue;
    }
    const at = (path: readonly PropertyKey[], message: string): FileIssue => ({
      file: source.file,
      ...parsed.locate(path),
      path: formatPath(path),
      message,
    });
    const fileIssues: FileIssue[] = [];
    const value = substituteVars(parsed.value, options.vars ?? {}, (path, name) =>
      fileIssues.push(at(path, `\${${name}} is not defined (pass it as a variable)`)),
    );
    fileIssues.push(...semanticIssues(value, at));
    const result = dashboardFile.safeParse(value);
    if (!result.success) fileIssues.push(...schemaIssues(result.error.issues, at));

    const data = result.success ? result.data : undefined;
    const key = data?.key ?? deriveKey(source.file);
    if (data && data.key === undefined && !dashboardKey.safeParse(key).success) {
      fileIssues.push(
        at(
          [],
          `the file path gives the key "${key}", which is not a valid key: set \`key:\` in the file`,
        ),
      );
    }
    const first = seen.get(key);
    if (first !== undefined) {
      fileIssues.push(
        at(data?.key !== undefined ? ['key'] : [], `duplicate key "${key}": also used by ${first}`),
      );
    } else {
      seen.set(key, source.file);
    }
    fileIssues.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
    issues.push(...fileIssues);
    if (data && fileIssues.length === 0) dashboards.push(toDesired(data, key, source.file));
  }
  return { dashboards, issues };
}

function toDesired(data: DashboardFile, key: string, sourceFile: string): DesiredDashboard {
  return {
    key,
    sourceFile,
    name: data.name,
    tags: [...new Set(data.tags ?? [])].sort(),
    tiles: (data.tiles ?? []).map((t) => ({
      ...(t.key !== undefined ? { key: t.key } : {}),
      name: t.name,
      x: t.x,
      y: t.y,
      w: t.w,
      h: t.h,
      asRatio: t.asRatio ?? false,
      series: t.series ?? [],
      alerts: t.alerts ?? [],
    })),
  };
}

type At = (path: readonly PropertyKey[], message: string) => FileIssue;

function schemaIssues(zodIssues: readonly z.core.$ZodIssue[], at: At): FileIssue[] {
  return zodIssues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((k) => at([...issue.path, k], 'unknown field'));
    }
    const missing = issue.code === 'invalid_type' && /received undefined$/.test(issue.message);
    return [at(issue.path, missing ? 'required' : issue.message)];
  });
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** Rules across fields. Tolerant of bad shapes (the schema reports those), so all problems show at once. */
function semanticIssues(value: unknown, at: At): FileIssue[] {
  const out: FileIssue[] = [];
  if (!isRecord(value)) return out;
  if (Array.isArray(value.tags)) {
    const tags = new Set<string>();
    value.tags.forEach((tag, i) => {
      if (typeof tag !== 'string') return;
      if (isReservedTag(tag))
        out.push(at(['tags', i], `"${tag}" is reserved for the cloudops ownership marker`));
      if (tags.has(tag)) out.push(at(['tags', i], `duplicate tag "${tag}"`));
      tags.add(tag);
    });
  }
  if (!Array.isArray(value.tiles)) return out;
  const names = new Map<string, number>();
  const boxes: { i: number; name: string; x: number; y: number; w: number; h: number }[] = [];
  value.tiles.forEach((tile: unknown, i) => {
    if (!isRecord(tile)) return;
    if (typeof tile.name === 'string') {
      const first = names.get(tile.name);
      if (first !== undefined)
        out.push(
          at(['tiles', i, 'name'], `duplicate tile name "${tile.name}" (also tiles[${first}])`),
        );
      else names.set(tile.name, i);
    }
    const { x, y, w, h } = tile;
    if (isNum(x) && isNum(w) && x + w > DASHBOARD_LIMITS.gridColumns) {
      out.push(
        at(
          ['tiles', i, 'w'],
          `x + w must be <= ${DASHBOARD_LIMITS.gridColumns} (x ${x} + w ${w} = ${x + w})`,
        ),
      );
    }
    if (isNum(x) && isNum(y) && isNum(w) && isNum(h) && w > 0 && h > 0) {
      const name = typeof tile.name === 'string' ? tile.name : `tiles[${i}]`;
      for (const other of boxes) {
        if (x < other.x + other.w && other.x < x + w && y < other.y + other.h && other.y < y + h) {
          out.push(
            at(['tiles', i], `tile "${name}" overlaps tile "${other.name}" (tiles[${other.i}])`),
          );
        }
      }
      boxes.push({ i, name, x, y, w, h });
    }
    if (Array.isArray(tile.series)) {
      const types = tile.series
        .map((s: unknown) => (isRecord(s) ? s.type : undefined))
        .filter((t) => typeof t === 'string');
      if (new Set(types).size > 1) {
        out.push(
          at(
            ['tiles', i, 'series'],
            `all series of one tile must share a type (found ${[...new Set(types)].join(', ')})`,
          ),
        );
      }
    }
    if (Array.isArray(tile.alerts)) {
      const alertNames = new Set<string>();
      tile.alerts.forEach((a: unknown, j) => {
        if (!isRecord(a) || typeof a.name !== 'string') return;
        if (alertNames.has(a.name))
          out.push(
            at(['tiles', i, 'alerts', j, 'name'], `duplicate alert name "${a.name}" on this tile`),
          );
        alertNames.add(a.name);
      });
    }
  });
  return out;
}
