/** The profiles the sandbox can serve (see index.ts for what one is). */
export const SANDBOX_PROFILES = ['current', 'spec'] as const;
export type SandboxProfile = (typeof SANDBOX_PROFILES)[number];
export const DEFAULT_PROFILE: SandboxProfile = 'current';

export function isSandboxProfile(value: unknown): value is SandboxProfile {
  return typeof value === 'string' && (SANDBOX_PROFILES as readonly string[]).includes(value);
}
