/**
 * What can be known of a `{ secret, key? }` reference without reading it (so `validate` stays
 * offline): its fields, and whether the secret id can name a secret at all, by the forms
 * Secrets Manager documents. A secret name is 1-512 ASCII letters, digits and `/_+=.@-`; an ARN
 * is `arn:<partition>:secretsmanager:<region>:<account>:secret:<name>` (the name ends with the
 * `-xxxxxx` Secrets Manager adds), and a SecretId is at most 2048 characters. Whether the secret
 * exists, is readable, is JSON and has the key is known only by reading it (plan and apply).
 */
/** A secret name (the one pattern the stack's settings and webhook files share). */
export const SECRET_NAME = /^[A-Za-z0-9/_+=.@-]{1,512}$/;
const NAME = SECRET_NAME;
const ARN_HEAD = 'arn:aws(?:-[a-z]+)*:secretsmanager:[a-z0-9-]+:\\d{12}:secret:';
const ARN = new RegExp(`^${ARN_HEAD}[A-Za-z0-9/_+=.@-]+$`);
/** A complete ARN: the name and the `-xxxxxx` Secrets Manager appends (what IAM matches). */
export const SECRET_COMPLETE_ARN = new RegExp(
  `^${ARN_HEAD}[A-Za-z0-9/_+=.@-]{1,512}-[A-Za-z0-9]{6}$`,
);
const MAX_ID = 2048;
const FIELDS = new Set(['secret', 'key']);

/** Why `id` cannot name a secret; undefined when it can. */
function secretIdProblem(id: string): string | undefined {
  if (id.startsWith('arn:')) {
    if (id.length <= MAX_ID && ARN.test(id)) return undefined;
    return `secret ${JSON.stringify(id)} is not a Secrets Manager ARN (arn:aws:secretsmanager:<region>:<12-digit account>:secret:<name>)`;
  }
  if (NAME.test(id)) return undefined;
  const length = id.length > 512 ? `${id.length} characters, over 512` : undefined;
  return `secret ${JSON.stringify(id.length > 80 ? `${id.slice(0, 80)}…` : id)} is not a secret name (${length ?? 'ASCII letters, digits and /_+=.@- only'}) or ARN`;
}

/** What is wrong with a mapping written where a value goes; undefined for a good reference. */
export function referenceForm(v: Readonly<Record<string, unknown>>): string | undefined {
  const extra = Object.keys(v).filter((k) => !FIELDS.has(k));
  if (extra.length > 0)
    return `a secret reference takes secret and key only, not ${extra.map((k) => JSON.stringify(k)).join(', ')}`;
  if (v.secret === undefined)
    return 'key' in v
      ? '`key` names a field of a JSON secret: add `secret: <id or ARN>` beside it'
      : 'expected a ${VARIABLE} or { secret: <id>, key?: <field> }';
  if (typeof v.secret !== 'string' || v.secret === '')
    return 'secret: expected a secret id or ARN (a string)';
  if (v.key !== undefined && (typeof v.key !== 'string' || v.key === ''))
    return 'key: expected the name of a field of the JSON secret (a string)';
  return secretIdProblem(v.secret);
}

/** The 6 characters Secrets Manager appends to a secret's name in its ARN. */
const ARN_SUFFIX = /-[A-Za-z0-9]{6}$/;

/** An id's ARN head (`arn:…:secret:`, empty for a name) and its name part. */
function splitId(id: string): { head: string; name: string } {
  const at = id.startsWith('arn:') ? id.indexOf(':secret:') : -1;
  return at < 0 ? { head: '', name: id } : { head: id.slice(0, at + 8), name: id.slice(at + 8) };
}

/**
 * Whether a grant (a name, or an ARN with or without its suffix) covers the secret `id` names,
 * as IAM matches it: a name grant covers `name` and its ARNs (any suffix); an ARN grant covers
 * that ARN, its form without the suffix, and the name alone (the function's own account).
 */
export function grantCovers(grant: string, id: string): boolean {
  const g = splitId(grant);
  const r = splitId(id);
  if (g.head && r.head && g.head !== r.head) return false;
  const bare = (name: string, head: string) => (head ? name.replace(ARN_SUFFIX, '') : name);
  if (g.name === r.name) return true;
  // One side may carry the suffix the other leaves out.
  return bare(g.name, g.head) === r.name || bare(r.name, r.head) === g.name;
}
