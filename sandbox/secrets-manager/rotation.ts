import { isSecretField, redactText } from '../../lib/redact';
import { SecretsManagerFault, invalidRequest } from './errors';
import { findByStage } from './labels';
import { AWSCURRENT, AWSPENDING, type RotationRules, type SecretRecord } from './state';
import type { SecretStore } from './store';

const ROTATION_STEPS = ['createSecret', 'setSecret', 'testSecret', 'finishSecret'] as const;
type RotationStep = (typeof ROTATION_STEPS)[number];

/** The event Secrets Manager sends a rotation Lambda. */
export interface RotationEvent {
  SecretId: string;
  ClientRequestToken: string;
  Step: string;
}

/** Runs one step of the rotation function named by `lambdaArn` (the sandbox wires its functions in). */
export type RotationInvoker = (lambdaArn: string, event: RotationEvent) => Promise<void>;

interface RotateRequest {
  secret: SecretRecord;
  token: string;
  lambdaArn: string | undefined;
  rules: RotationRules | undefined;
  rotateImmediately: boolean;
}

/**
 * When RotateSecret answers: `async` as AWS does (the caller gets the version id at once and
 * follows the rotation through the version's stages), or `sync`, after the four steps ran, so
 * the answer carries the finished rotation or the failing step.
 */
export type RotationTiming = 'async' | 'sync';

/**
 * RotateSecret. As in AWS: rotation is enabled, an AWSPENDING version without a value is created
 * for the token, and a rotation is refused while an AWSPENDING version other than AWSCURRENT
 * exists (a previous rotation is unfinished). A failed rotation leaves its placeholder in place
 * (AWS would retry it), so the next RotateSecret is refused until someone clears it. `track`
 * receives the background run of an async rotation (the sandbox waits for it on close).
 */
export async function rotateSecret(
  store: SecretStore,
  invoker: RotationInvoker | undefined,
  request: RotateRequest,
  options: { onChange: () => void; timing: RotationTiming; track: (run: Promise<void>) => void },
): Promise<void> {
  const { secret, token, rules } = request;
  const lambdaArn = request.lambdaArn ?? secret.rotationLambdaArn;
  if (!lambdaArn) {
    throw invalidRequest(
      'No Lambda rotation function ARN is associated with this secret: give RotationLambdaARN.',
    );
  }
  if (!invoker) {
    throw invalidRequest(
      `The sandbox has no rotation function invoker configured to run ${lambdaArn}.`,
    );
  }
  const pending = findByStage(secret, AWSPENDING);
  if (pending && !pending.stages.includes(AWSCURRENT)) {
    throw invalidRequest("A previous rotation isn't complete. That rotation will be reattempted.");
  }
  store.configureRotation(secret, lambdaArn, rules);
  store.addPendingPlaceholder(secret, token);
  options.onChange();
  const run = runRotation(store, invoker, { ...request, lambdaArn }, options.onChange);
  if (options.timing === 'sync') return run;
  // The failure stays where AWS leaves it: in the function's logs and the AWSPENDING placeholder.
  options.track(run.catch(() => undefined));
}

async function runRotation(
  store: SecretStore,
  invoker: RotationInvoker,
  request: RotateRequest & { lambdaArn: string },
  onChange: () => void,
): Promise<void> {
  const { secret, token, lambdaArn } = request;
  const event = (Step: RotationStep): RotationEvent => ({
    SecretId: secret.arn,
    ClientRequestToken: token,
    Step,
  });
  if (!request.rotateImmediately) {
    // AWS tests the configuration with the testSecret step on a temporary AWSPENDING version.
    try {
      await runStep(invoker, lambdaArn, event('testSecret'), secret);
    } finally {
      store.dropVersion(secret, token);
      onChange();
    }
    return;
  }
  for (const step of ROTATION_STEPS) {
    await runStep(invoker, lambdaArn, event(step), secret);
  }
  store.markRotated(secret);
  onChange();
}

async function runStep(
  invoker: RotationInvoker,
  lambdaArn: string,
  event: RotationEvent,
  secret: SecretRecord,
): Promise<void> {
  try {
    await invoker(lambdaArn, event);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new SecretsManagerFault(
      'InvalidRequestException',
      `Rotation function ${lambdaArn} failed at step ${event.Step}: ${maskSecretValues(detail, secret)}`,
    );
  }
}

/**
 * Redact the step's error text: registered secrets, Authorization headers, and what this
 * secret's versions hold that is secret (whole values, and the secret-named fields of JSON
 * values). Ids (organizationId, keyId, keyRecordId) stay readable: an error that hides them
 * cannot say which key or organization failed.
 */
function maskSecretValues(text: string, secret: SecretRecord): string {
  let out = redactText(text);
  for (const value of secretValueFragments(secret)) {
    if (out.includes(value)) out = out.split(value).join('[REDACTED]');
  }
  return out;
}

function secretValueFragments(secret: SecretRecord): string[] {
  const fragments: string[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      value.forEach(visit);
    } else if (value && typeof value === 'object') {
      for (const [key, field] of Object.entries(value)) {
        if (typeof field === 'string' && isSecretField(key) && field.length >= 6)
          fragments.push(field);
        else visit(field);
      }
    }
  };
  for (const version of secret.versions) {
    if (version.secretString === undefined) continue;
    fragments.push(version.secretString);
    try {
      visit(JSON.parse(version.secretString));
    } catch {
      // Not JSON: the whole string is already in the list.
    }
  }
  // Longest first, so a value containing another is masked whole.
  return fragments.sort((a, b) => b.length - a.length);
}
