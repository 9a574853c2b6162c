/**
 * The key audit, pure: every key of the organization, the organization's activities and our key
 * secrets (as their tags describe them) at a time, under a policy -> findings, each with a
 * severity and what to do. `cloudops keys audit|list` and the key sentinel are thin users of it.
 */
import { KEY_ACTIVITY_TYPES, type Activity, type KeyRecord } from '../schemas';
import { formatDuration } from './duration';
import { describeManagement, managementOf, type Management, type ManagedSecret } from './managed';
import { UNIT_MS } from '../duration';

export const SEVERITIES = ['low', 'medium', 'high'] as const;
export type FindingSeverity = (typeof SEVERITIES)[number];

export type KeyCheck =
  | 'never-expires'
  | 'admin-role'
  | 'no-ip-access-list'
  | 'unused'
  | 'expiring-unmanaged'
  | 'disabled'
  | 'created-outside-rotation'
  | 'rotation-overdue'
  | 'key-missing'
  | 'not-tracked';

/** One thing worth fixing about a key (or a key secret of ours). Never carries key material. */
export interface KeyFinding {
  /** Stable per check and subject: the dedup key of its notice. */
  id: string;
  check: KeyCheck;
  severity: FindingSeverity;
  /** The key it is about (absent for a secret's own finding). */
  key?: { id: string; name: string; suffix: string };
  /** The secret of ours it concerns, if any. */
  secretId?: string;
  message: string;
  /** What to do about it, as a command where one exists. */
  action: string;
}

export interface AuditPolicy {
  /** A key not used for this many days (or never, this long since made) is unused. */
  unusedDays: number;
  /** A key no rotation of ours replaces that expires within this many days. */
  expiringDays: number;
  /** A key of ours that expires within this many days: its rotation is overdue. */
  rotationWarnDays: number;
  /** Start of the names the rotator gives keys (CLOUDOPS_KEY_NAME_PREFIX). */
  namePrefix: string;
}

export const DEFAULT_AUDIT_POLICY: AuditPolicy = {
  unusedDays: 90,
  expiringDays: 14,
  rotationWarnDays: 7,
  namePrefix: 'cloudops-rotated-',
};

export interface AuditInput {
  /** Every key record; undefined when they could not be listed (only our secrets' tags are checked). */
  keys: readonly KeyRecord[] | undefined;
  activities: readonly Activity[];
  secrets: readonly ManagedSecret[];
  /** Epoch ms. */
  now: number;
  policy: AuditPolicy;
}

const RANK: Record<FindingSeverity, number> = { low: 1, medium: 2, high: 3 };

export const atOrAbove = (severity: FindingSeverity, floor: FindingSeverity) =>
  RANK[severity] >= RANK[floor];

export const isAdminKey = (record: KeyRecord) =>
  record.roles?.includes('admin') === true ||
  (record.assignedRoles ?? []).some(
    (role) => role.roleType === 'system' && /^admin$/i.test(role.roleName ?? ''),
  );

const days = (ms: number) => Math.floor(ms / UNIT_MS.d);

/** Everything worth fixing, most severe first. */
export function auditKeys(input: AuditInput): KeyFinding[] {
  const findings = [
    ...(input.keys ?? []).flatMap((record) => keyFindings(record, input)),
    ...input.secrets.flatMap((secret) => secretFindings(secret, input)),
  ];
  return findings.sort(
    (a, b) =>
      RANK[b.severity] - RANK[a.severity] ||
      (a.key?.name ?? a.secretId ?? '').localeCompare(b.key?.name ?? b.secretId ?? '') ||
      a.check.localeCompare(b.check),
  );
}

/** What a finding about one key needs to know. */
interface KeyContext {
  record: KeyRecord;
  management: Management | undefined;
  now: number;
  policy: AuditPolicy;
  finding(check: KeyCheck, severity: FindingSeverity, message: string, action: string): KeyFinding;
}

function keyFindings(record: KeyRecord, input: AuditInput): KeyFinding[] {
  const management = managementOf(record, input.secrets, input.policy.namePrefix);
  const label = `key ${record.name} (…${record.keySuffix})`;
  const secretId =
    management && management.kind !== 'other-deployment' ? management.secret.secretId : undefined;
  const ctx: KeyContext = {
    record,
    management,
    now: input.now,
    policy: input.policy,
    finding: (check, severity, message, action) => ({
      id: `${check}/${record.id}`,
      check,
      severity,
      key: { id: record.id, name: record.name, suffix: record.keySuffix },
      ...(secretId ? { secretId } : {}),
      message: `${label} ${message}`,
      action,
    }),
  };
  if (record.state === 'disabled') return disabledFindings(ctx);
  if (record.expireAt !== null && Date.parse(record.expireAt) <= input.now) return [];
  return [
    ...expiryFindings(ctx),
    ...roleAndNetworkFindings(ctx),
    ...usageFindings(ctx),
    ...originFindings(ctx, input.activities),
  ].filter((f): f is KeyFinding => f !== undefined);
}

const adoptAction = (record: KeyRecord) =>
  `bring it under rotation: cloudops keys adopt --key-id <its key ID, …${record.keySuffix}> --secret-id <a secret>`;
const rotateAction = (secret: ManagedSecret) =>
  `rotate it now: cloudops keys rotate --secret-id ${secret.name}; if that fails, the rotation function's logs say why`;

function disabledFindings(ctx: KeyContext): KeyFinding[] {
  const { management, record } = ctx;
  if (management?.kind === 'current')
    return [
      ctx.finding(
        'rotation-overdue',
        'high',
        `is disabled, yet it is the current key of ${management.secret.name}`,
        rotateAction(management.secret),
      ),
    ];
  // The rotator disables its earlier keys and deletes them once expired; another rotator's are its own.
  if (management) return [];
  return [
    ctx.finding(
      'disabled',
      'low',
      'is disabled but not deleted',
      `delete it: cloudops keys revoke ${record.id} --grace 0`,
    ),
  ];
}

function expiryFindings(ctx: KeyContext): (KeyFinding | undefined)[] {
  const { record, management, now, policy } = ctx;
  const admin = isAdminKey(record);
  if (record.expireAt === null) {
    const ours = management?.kind === 'current' || management?.kind === 'owned';
    return [
      ctx.finding(
        'never-expires',
        admin ? 'high' : 'medium',
        `never expires${admin ? ' and holds the admin role' : ''}`,
        ours
          ? rotateAction(management.secret)
          : `${adoptAction(record)}, or give it an expiry in the console`,
      ),
    ];
  }
  const left = Date.parse(record.expireAt) - now;
  if (management?.kind === 'current' && left <= policy.rotationWarnDays * UNIT_MS.d) {
    return [
      ctx.finding(
        'rotation-overdue',
        'high',
        `expires ${record.expireAt} (in ${days(left)} days), yet ${management.secret.name} should have replaced it by now`,
        rotateAction(management.secret),
      ),
    ];
  }
  if (management === undefined && left <= policy.expiringDays * UNIT_MS.d) {
    return [
      ctx.finding(
        'expiring-unmanaged',
        'medium',
        `expires ${record.expireAt} (in ${days(left)} days) and no rotation of ours replaces it`,
        `${adoptAction(record)}, or replace it before then`,
      ),
    ];
  }
  return [];
}

function roleAndNetworkFindings(ctx: KeyContext): (KeyFinding | undefined)[] {
  const { record } = ctx;
  return [
    isAdminKey(record)
      ? ctx.finding(
          'admin-role',
          'low',
          'holds the admin role',
          'give it the narrowest role its user needs; keep admin for the key that manages keys',
        )
      : undefined,
    (record.ipAccessList ?? []).length === 0
      ? ctx.finding(
          'no-ip-access-list',
          'low',
          'has no IP access list: it works from any address',
          'limit it to the addresses that call with it (its IP access list)',
        )
      : undefined,
  ];
}

function usageFindings(ctx: KeyContext): (KeyFinding | undefined)[] {
  const { record, management, now, policy } = ctx;
  // A retiring key is meant to go quiet; another deployment watches its own.
  if (management && management.kind !== 'current') return [];
  const lastUse = record.usedAt ?? record.createdAt;
  if (lastUse === undefined) return [];
  const idle = now - Date.parse(lastUse);
  if (idle < policy.unusedDays * UNIT_MS.d) return [];
  const message = record.usedAt
    ? `has not been used for ${days(idle)} days (last used ${record.usedAt})`
    : `has never been used since it was made ${record.createdAt} (${days(idle)} days ago)`;
  const action = management
    ? `check that the function holding ${management.secret.name} runs: its key has been idle ${formatDuration(idle - (idle % UNIT_MS.d))}`
    : `revoke it: cloudops keys revoke ${record.id}`;
  return [ctx.finding('unused', 'medium', message, action)];
}

/** The activity that made the key, matched by record id or (when it holds a key ID) by suffix. */
function creationOf(record: KeyRecord, activities: readonly Activity[]): Activity | undefined {
  const made = (a: Activity) =>
    a.type === 'key_create' || (a.type === 'openapi_key_update' && a.keyUpdateType === 'created');
  const targets = (a: Activity) =>
    a.targetKeyId === record.id ||
    (a.targetKeyId !== undefined &&
      a.targetKeyId.length > 4 &&
      !/^[0-9a-f-]{36}$/i.test(a.targetKeyId) &&
      a.targetKeyId.endsWith(record.keySuffix));
  return activities.find(
    (a) => (KEY_ACTIVITY_TYPES as readonly string[]).includes(a.type) && made(a) && targets(a),
  );
}

function originFindings(ctx: KeyContext, activities: readonly Activity[]): KeyFinding[] {
  if (ctx.management) return [];
  const made = creationOf(ctx.record, activities);
  if (!made) return [];
  const who = [made.actorType ?? 'someone', made.actorDetails ?? made.actorId]
    .filter(Boolean)
    .join(' ');
  const where = made.actorIpAddress ? ` from ${made.actorIpAddress}` : '';
  const agent = made.userAgent ? ` (${made.userAgent})` : '';
  return [
    ctx.finding(
      'created-outside-rotation',
      'low',
      `was made outside rotation by ${who} at ${made.createdAt ?? 'an unknown time'}${where}${agent}`,
      `confirm who uses it, then ${adoptAction(ctx.record)} or revoke it`,
    ),
  ];
}

function secretFindings(secret: ManagedSecret, input: AuditInput): KeyFinding[] {
  const finding = (
    check: KeyCheck,
    severity: FindingSeverity,
    message: string,
    action: string,
  ) => ({
    id: `${check}/${secret.secretId}`,
    check,
    severity,
    secretId: secret.secretId,
    message: `secret ${secret.name} ${message}`,
    action,
  });
  const tags = secret.key;
  // Still its deploy-time placeholder: not configured yet, which is not a finding.
  if (!tags && !secret.seeded) return [];
  if (!tags)
    return [
      finding(
        'not-tracked',
        'medium',
        'does not name its key yet (no rotation since its key tags were introduced)',
        `rotate it once (cloudops keys rotate --secret-id ${secret.name}) or adopt its key`,
      ),
    ];
  const overdue: KeyFinding[] = [];
  if (!secret.rotationEnabled)
    overdue.push(
      finding(
        'rotation-overdue',
        'high',
        'has rotation turned off',
        `turn it on: ${adoptHint(secret)}`,
      ),
    );
  else if (secret.nextRotationAt !== undefined && secret.nextRotationAt < input.now - UNIT_MS.d)
    overdue.push(
      finding(
        'rotation-overdue',
        'high',
        `was due to rotate ${new Date(secret.nextRotationAt).toISOString()}`,
        rotateAction(secret),
      ),
    );
  if (input.keys === undefined) return [...overdue, ...tagExpiry(secret, tags, input, finding)];
  if (input.keys.some((record) => record.id === tags.keyRecordId)) return overdue;
  return [
    ...overdue,
    finding(
      'key-missing',
      'high',
      `holds key …${tags.keySuffix}, which the service no longer has (deleted?)`,
      `make a key with the same roles in the console, then cloudops keys adopt --key-id <its key ID> --secret-id ${secret.name}`,
    ),
  ];
}

const adoptHint = (secret: ManagedSecret) =>
  `cloudops keys adopt --key-id <its key ID> --secret-id ${secret.name} turns it on`;

/** Without the key list, the expiry the rotator recorded on the secret is what there is. */
function tagExpiry(
  secret: ManagedSecret,
  tags: NonNullable<ManagedSecret['key']>,
  input: AuditInput,
  finding: (c: KeyCheck, s: FindingSeverity, m: string, a: string) => KeyFinding,
): KeyFinding[] {
  if (tags.expireAt === null)
    return [
      finding(
        'never-expires',
        'high',
        `holds key …${tags.keySuffix}, which never expires`,
        rotateAction(secret),
      ),
    ];
  const left = Date.parse(tags.expireAt) - input.now;
  if (left > input.policy.rotationWarnDays * UNIT_MS.d) return [];
  return [
    finding(
      'rotation-overdue',
      'high',
      `holds key …${tags.keySuffix}, which ${left <= 0 ? 'expired' : 'expires'} ${tags.expireAt}`,
      rotateAction(secret),
    ),
  ];
}

/** One row of `keys list`: the key's facts, who manages it and its worst finding. */
export interface KeyListing {
  id: string;
  name: string;
  suffix: string;
  roles: string[];
  state: string;
  createdAt: string | null;
  usedAt: string | null;
  expireAt: string | null;
  ipAccessListSize: number;
  managedBy: string;
  risk: FindingSeverity | 'none';
  findings: number;
}

/** Every key with its facts, riskiest first (then by name). */
export function listKeysByRisk(
  keys: readonly KeyRecord[],
  findings: readonly KeyFinding[],
  secrets: readonly ManagedSecret[],
  namePrefix: string,
): KeyListing[] {
  const rows = keys.map((record): KeyListing => {
    const own = findings.filter((f) => f.key?.id === record.id);
    const worst = own.reduce<FindingSeverity | undefined>(
      (top, f) => (top === undefined || RANK[f.severity] > RANK[top] ? f.severity : top),
      undefined,
    );
    return {
      id: record.id,
      name: record.name,
      suffix: record.keySuffix,
      roles: record.assignedRoles?.map((r) => r.roleName ?? r.roleId) ?? record.roles ?? [],
      state: record.state ?? 'enabled',
      createdAt: record.createdAt ?? null,
      usedAt: record.usedAt ?? null,
      expireAt: record.expireAt,
      ipAccessListSize: (record.ipAccessList ?? []).length,
      managedBy: describeManagement(managementOf(record, secrets, namePrefix)),
      risk: worst ?? 'none',
      findings: own.length,
    };
  });
  const rank = (row: KeyListing) => (row.risk === 'none' ? 0 : RANK[row.risk]);
  return rows.sort(
    (a, b) => rank(b) - rank(a) || b.findings - a.findings || a.name.localeCompare(b.name),
  );
}
