/**
 * Which service the sandbox models: `current` = the live service as API-FACTS.md "The service as
 * it stands today" describes it; `spec` = the spec's snapshot (the sandbox's original behaviour).
 * Everything that differs between the two lives in one `Profile` object per profile
 * (profiles/spec.ts, profiles/current/); the surfaces only ask it.
 */
import type { ManagementHandler } from '../management/context';
import type { ObservabilityHandler } from '../observability/routes';
import type { Route } from '../router';
import type { SandboxState } from '../store';
import type { KeyRules } from './key-rules';
import type { SandboxProfile } from './names';

export interface Profile {
  name: SandboxProfile;
  /** The `/api/v2` routes (dashboards, alerts, and whatever else this profile serves). */
  apiV2Routes: readonly Route<ObservabilityHandler>[];
  /** The `/v1/.../services/{sid}/observability/...` routes of the management API. */
  managementObservabilityRoutes: readonly Route<ManagementHandler>[];
  /** The metrics endpoint (`.../prometheus`); none in the spec's snapshot. */
  metricsRoutes: readonly Route<ManagementHandler>[];
  keys: KeyRules;
  /** The 400 message for a malformed object id in an `/api/v2` path. */
  invalidObjectIdMessage(value: string): string;
  /** Adds what this profile's service has beyond the shared seed (runs once, on a fresh state). */
  seed(state: SandboxState, now: number): void;
}
