import { AWSCURRENT, AWSPREVIOUS, type SecretRecord, type SecretVersion } from './state';

/** Staging-label bookkeeping: each label sits on at most one version of a secret. */

export function findByStage(secret: SecretRecord, stage: string): SecretVersion | undefined {
  return secret.versions.find((version) => version.stages.includes(stage));
}

export function findVersion(secret: SecretRecord, versionId: string): SecretVersion | undefined {
  return secret.versions.find((version) => version.versionId === versionId);
}

export function removeLabel(version: SecretVersion, stage: string): void {
  version.stages = version.stages.filter((label) => label !== stage);
}

/**
 * Attach `stage` to `target`, taking it off whichever version held it. Moving AWSCURRENT
 * also moves AWSPREVIOUS to the version AWSCURRENT left (as AWS documents for
 * PutSecretValue and UpdateSecretVersionStage).
 */
export function attachLabel(secret: SecretRecord, target: SecretVersion, stage: string): void {
  const holder = findByStage(secret, stage);
  if (holder === target) return;
  if (holder) removeLabel(holder, stage);
  target.stages.push(stage);
  if (stage === AWSCURRENT && holder) {
    const previous = findByStage(secret, AWSPREVIOUS);
    if (previous) removeLabel(previous, AWSPREVIOUS);
    holder.stages.push(AWSPREVIOUS);
  }
}

/** `{ versionId: stages }` for versions that still carry a label (unlabelled ones are deprecated). */
export function versionIdsToStages(secret: SecretRecord): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const version of secret.versions) {
    if (version.stages.length > 0) out[version.versionId] = [...version.stages];
  }
  return out;
}
