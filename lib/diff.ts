/**
 * Field-level differences with old and new values, for plans and their renderings
 * (`cdk diff`-like trees). Objects are compared key by key, arrays index by index, so a
 * change reads as `series[0].aggFn: "avg" → "sum"` rather than "series changed".
 * Shared by the dashboards plan and the alerts engine, so it depends on neither.
 */

export interface FieldChange {
  /** `h`, `series[0].where`, `channel.webhookId`. */
  path: string;
  /** Absent when the field is new. */
  from?: unknown;
  /** Absent when the field is gone. */
  to?: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** Leaf differences from `from` to `to` (empty when equal). */
export function diffValues(from: unknown, to: unknown, path = ''): FieldChange[] {
  if (stableStringify(from) === stableStringify(to)) return [];
  const join = (k: string | number) =>
    typeof k === 'number' ? `${path}[${k}]` : path === '' ? k : `${path}.${k}`;
  if (isObject(from) && isObject(to)) {
    const keys = [...new Set([...Object.keys(from), ...Object.keys(to)])].sort();
    return keys.flatMap((k) => diffValues(from[k], to[k], join(k)));
  }
  if (Array.isArray(from) && Array.isArray(to) && from.every(isObject) && to.every(isObject)) {
    const out: FieldChange[] = [];
    for (let i = 0; i < Math.max(from.length, to.length); i++)
      out.push(...diffValues(from[i], to[i], join(i)));
    return out;
  }
  return [{ path, ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}) }];
}

/** `"a"`, `5`, `[host, pod]`, `(none)`: short and unambiguous for one line. */
export function formatValue(value: unknown): string {
  if (value === undefined) return '(none)';
  if (typeof value === 'string') return JSON.stringify(value);
  return stableStringify(value);
}

/** JSON with object keys sorted, so key order never reads as a difference. */
export function stableStringify(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
