/**
 * `cloudops keys revoke`: disable a key now and cut its expiry to the grace (so re-enabling it
 * cannot bring it back for longer), delete it once the grace is over (at once with a zero
 * grace). The decision is pure (planRevoke); revokeKey carries it out. Running it again after
 * the grace deletes the key.
 */
import type { ManagementClient } from '../api';
import type { KeyRecord } from '../schemas';
import { KeyCommandError } from './errors';
import { managementOf, type ManagedSecret } from './managed';

export interface RevokeRequest {
  keyRecordId: string;
  /** How long the disabled key may still be re-enabled; 0 deletes it now. */
  graceMs: number;
  /** Revoke a key another deployment rotates, or one of our secrets holds. */
  force: boolean;
}

export interface RevokeContext {
  records: readonly KeyRecord[];
  secrets: readonly ManagedSecret[];
  namePrefix: string;
  /** Epoch ms. */
  now: number;
  /** The suffix of the key this command authenticates with (it cannot revoke itself). */
  selfSuffix?: string | undefined;
}

export type RevokePlan =
  | { action: 'delete'; record: KeyRecord; reason: string }
  | { action: 'disable'; record: KeyRecord; expireAt: string }
  | { action: 'nothing'; record: KeyRecord; reason: string };

const refuse = (record: KeyRecord, message: string) =>
  new KeyCommandError(`key ${record.name} (…${record.keySuffix}) ${message}`, {
    subject: record.id,
  });

export function planRevoke(request: RevokeRequest, ctx: RevokeContext): RevokePlan {
  const record = ctx.records.find((r) => r.id === request.keyRecordId);
  if (!record)
    throw new KeyCommandError(
      `no key has the record id ${request.keyRecordId}; \`cloudops keys list\` shows every key's id`,
      { subject: request.keyRecordId },
    );
  if (record.keySuffix === ctx.selfSuffix)
    throw refuse(record, 'is the key this command runs with: revoke it with another key');
  const management = managementOf(record, ctx.secrets, ctx.namePrefix);
  if (!request.force && management?.kind === 'other-deployment')
    throw refuse(
      record,
      `is rotated by another deployment (${management.marker}…): revoking it breaks that deployment's function; give --force to revoke it anyway`,
    );
  if (!request.force && management?.kind === 'current')
    throw refuse(
      record,
      `is the current key of ${management.secret.name}: rotate that secret instead (cloudops keys rotate --secret-id ${management.secret.name}), or give --force`,
    );
  const expiry = record.expireAt === null ? Infinity : Date.parse(record.expireAt);
  if (request.graceMs === 0) return { action: 'delete', record, reason: 'no grace' };
  if (record.state === 'disabled' && expiry <= ctx.now)
    return { action: 'delete', record, reason: 'disabled and past its grace' };
  const graceEnd = ctx.now + request.graceMs;
  if (record.state === 'disabled' && expiry <= graceEnd)
    return {
      action: 'nothing',
      record,
      reason: `already revoked: it expires ${record.expireAt}; revoke it again after that to delete it`,
    };
  // Never lengthen: a key that expires before the grace ends keeps its expiry.
  return {
    action: 'disable',
    record,
    expireAt: new Date(Math.min(expiry, graceEnd)).toISOString(),
  };
}

export type RevokeApi = Pick<ManagementClient, 'updateKey' | 'deleteKey'>;

/** Carries out a plan: one PATCH (disable + expiry) or one DELETE. */
export async function revokeKey(api: RevokeApi, plan: RevokePlan): Promise<string> {
  const { record } = plan;
  const label = `key ${record.name} (…${record.keySuffix})`;
  if (plan.action === 'nothing') return `${label}: ${plan.reason}`;
  if (plan.action === 'delete') {
    await api.deleteKey(record.id);
    return `${label} deleted (${plan.reason})`;
  }
  await api.updateKey(record.id, { state: 'disabled', expireAt: plan.expireAt });
  return `${label} disabled; it expires ${plan.expireAt} (re-enable it before then if something still needs it); revoke it again after that to delete it`;
}
