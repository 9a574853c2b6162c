/**
 * Which service the sandbox models: `current` = the live service as API-FACTS.md "The service as
 * it stands today" describes it; `spec` = the spec's snapshot (the sandbox's original behaviour).
 */
export const SANDBOX_PROFILES = ['current', 'spec'] as const;
export type SandboxProfile = (typeof SANDBOX_PROFILES)[number];
export const DEFAULT_PROFILE: SandboxProfile = 'current';

export function isSandboxProfile(value: unknown): value is SandboxProfile {
  return typeof value === 'string' && (SANDBOX_PROFILES as readonly string[]).includes(value);
}
