/**
 * Which service the sandbox models: `current` = the live service as API-FACTS.md "The service as
 * it stands today" describes it; `spec` = the spec's snapshot (the sandbox's original behaviour).
 * Everything that differs between the two lives in one `Profile` object per profile
 * (profiles/spec.ts, profiles/current/); the surfaces only ask it.
 */
import type { HashData, IpAccessEntry, KeyRole, KeyState } from '../../lib/schemas';
import type { ManagementHandler } from '../management/context';
import type { ObservabilityHandler } from '../observability/routes';
import type { Route } from '../router';
import type { AssignedRole, KeyRow, SandboxState } from '../store';

export const SANDBOX_PROFILES = ['current', 'spec'] as const;
export type SandboxProfile = (typeof SANDBOX_PROFILES)[number];
export const DEFAULT_PROFILE: SandboxProfile = 'current';

export function isSandboxProfile(value: unknown): value is SandboxProfile {
  return typeof value === 'string' && (SANDBOX_PROFILES as readonly string[]).includes(value);
}

/** The role fields of a key create or update, once the profile has read them. */
export interface KeyRoleFields {
  roles?: KeyRole[];
  assignedRoles?: AssignedRole[];
}

/** The fields of a key create both profiles share. */
export interface KeyCreateFields {
  name: string;
  expireAt?: string | null;
  state?: KeyState;
  hashData?: HashData;
  ipAccessList?: IpAccessEntry[];
}
export type KeyUpdateFields = Partial<Omit<KeyCreateFields, 'hashData'>>;

export interface KeyRules {
  /** Validates a create body (400 on failure): the shared fields plus the role fields. */
  parseCreate(body: unknown, state: SandboxState): { body: KeyCreateFields; roles: KeyRoleFields };
  parseUpdate(body: unknown, state: SandboxState): { body: KeyUpdateFields; roles: KeyRoleFields };
  /** Extra fields of the key record view. */
  view(key: KeyRow): Record<string, unknown>;
}

export interface Profile {
  name: SandboxProfile;
  /** The `/api/v2` routes (dashboards, alerts, and whatever else this profile serves). */
  apiV2Routes: readonly Route<ObservabilityHandler>[];
  /** The `/v1/.../services/{sid}/observability/...` routes of the management API. */
  managementObservabilityRoutes: readonly Route<ManagementHandler>[];
  keys: KeyRules;
  /** The 400 message for a malformed object id in an `/api/v2` path. */
  invalidObjectIdMessage(value: string): string;
  /** Adds what this profile's service has beyond the shared seed (runs once, on a fresh state). */
  seed(state: SandboxState, now: number): void;
}
