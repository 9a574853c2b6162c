import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { isConflict, isNotFound, type ManagementClient } from '../api';
import { staticCredentials } from '../credentials';
import type { CredentialProvider } from '../credentials/types';
import { silentLogger, type Logger } from '../log';
import { managementKeySecret, type KeyRecord, type ManagementKeySecret } from '../schemas';
import type { RotationConfig } from './config';
import { RotationError } from './errors';
import { generateKeyMaterial, hashDataFor } from './material';
import {
  findKeyRecord,
  isExpired,
  isOwned,
  isUsable,
  keyNameFor,
  ownedNamePrefix,
} from './ownership';
import { nextSecretValue, parseCurrent, parsePending, type RotatedKeySecret } from './secret';
import { AWSCURRENT, AWSPENDING, checkToken, SecretVersions, type SecretState } from './stages';

export const ROTATION_STEPS = ['createSecret', 'setSecret', 'testSecret', 'finishSecret'] as const;
/**
 * Expired rotator keys deleted per finishSecret: one in the steady state (the key two
 * rotations back), a backlog drains over a few rotations without making any one of them slow.
 */
export const MAX_EXPIRED_DELETES = 3;
export type RotationStep = (typeof ROTATION_STEPS)[number];

/** The management calls the rotator makes (a ManagementClient fits). */
export type RotationApi = Pick<
  ManagementClient,
  'createKey' | 'updateKey' | 'deleteKey' | 'listKeys' | 'listPipes'
> & {
  close(): void;
};

export interface RotationDeps {
  readonly secrets: SecretsManagerClient;
  /** Makes a management client that authenticates with the given credential. */
  readonly connect: (credentials: CredentialProvider<ManagementKeySecret>) => RotationApi;
  /** Epoch milliseconds (the sandbox passes its movable clock). */
  readonly now: () => number;
  readonly config: RotationConfig;
  readonly logger?: Logger;
}

export interface RotationRequest {
  readonly secretId: string;
  readonly token: string;
}

/** Runs one step as Secrets Manager asks for it; every step is safe to repeat. */
export async function runRotationStep(
  deps: RotationDeps,
  step: RotationStep,
  request: RotationRequest,
): Promise<void> {
  const steps = { createSecret, setSecret, testSecret, finishSecret };
  await steps[step](deps, request);
}

interface StepContext {
  versions: SecretVersions;
  state: SecretState;
  log: Logger;
  ownedPrefix: string;
}

async function begin(
  deps: RotationDeps,
  step: RotationStep,
  { secretId, token }: RotationRequest,
): Promise<StepContext | undefined> {
  const log = (deps.logger ?? silentLogger).child({ secretId, versionId: token, step });
  const versions = new SecretVersions(deps.secrets, secretId);
  const verdict = await checkToken(versions, token);
  if (!verdict.proceed) {
    log.info('rotation step skipped: the version is already AWSCURRENT');
    return undefined;
  }
  const ownedPrefix = ownedNamePrefix(deps.config.namePrefix, verdict.state.name);
  return { versions, state: verdict.state, log, ownedPrefix };
}

/**
 * createSecret: generate the new key locally and store it under AWSPENDING before the key
 * exists, so no crash can leave a key whose secret is lost. Nothing to do if the value exists.
 */
export async function createSecret(deps: RotationDeps, request: RotationRequest): Promise<void> {
  const ctx = await begin(deps, 'createSecret', request);
  if (!ctx) return;
  // Validate the current value first: a malformed secret fails here, naming the field, and nothing is made.
  const current = parseCurrent(request.secretId, await ctx.versions.read(AWSCURRENT));
  if ((await ctx.versions.read(AWSPENDING, request.token)) !== undefined) {
    ctx.log.info('pending version already has a value');
    return;
  }
  await storePending(deps, ctx, request.token, current);
}

async function storePending(
  deps: RotationDeps,
  ctx: StepContext,
  token: string,
  current: ManagementKeySecret,
): Promise<void> {
  const now = deps.now();
  const value = nextSecretValue(
    current,
    generateKeyMaterial(),
    keyNameFor(ctx.ownedPrefix, now),
    new Date(now + deps.config.lifetimeMs).toISOString(),
  );
  await ctx.versions.putPending(token, JSON.stringify(value));
  ctx.log.info('pending version stored', { keyName: value.keyName, expireAt: value.expireAt });
}

/**
 * setSecret: create the key with hashData (the service never sees the secret), the current
 * key's roles and IP list, and the expiry stored with it. Idempotent: a key already made by an
 * earlier attempt is found in the list (or answers 409) and is not made twice.
 */
export async function setSecret(deps: RotationDeps, request: RotationRequest): Promise<void> {
  const ctx = await begin(deps, 'setSecret', request);
  if (!ctx) return;
  const pending = await readPending(ctx, request);
  const current = parseCurrent(request.secretId, await ctx.versions.read(AWSCURRENT));
  const now = deps.now();
  if (Date.parse(pending.expireAt) <= now) {
    throw new RotationError(
      request.secretId,
      `The AWSPENDING version of ${request.secretId} expired (${pending.expireAt}) before its key was made; ` +
        'remove its AWSPENDING label and rotate again',
    );
  }
  await withApi(deps, await adminCredentials(deps, request.secretId, current), async (api) => {
    const records = await api.listKeys();
    if (findKeyRecord(records, pending)) {
      ctx.log.info('key already exists from an earlier attempt', { keyName: pending.keyName });
      return;
    }
    // At most two rotator keys stay usable: the current one and the one made now. Expired
    // keys are unusable already (finishSecret deletes them): no call spent on them here.
    const currentRecord = findKeyRecord(records, current);
    for (const record of records) {
      if (
        isOwned(record, ctx.ownedPrefix) &&
        record.id !== currentRecord?.id &&
        isUsable(record, now)
      ) {
        await api.updateKey(record.id, { state: 'disabled' });
        ctx.log.info('disabled an earlier rotator key', {
          keyRecordId: record.id,
          name: record.name,
        });
      }
    }
    try {
      const created = await api.createKey({
        name: pending.keyName,
        expireAt: pending.expireAt,
        hashData: hashDataFor(pending),
        roles: pending.roles,
        ...(pending.ipAccessList ? { ipAccessList: pending.ipAccessList } : {}),
      });
      ctx.log.info('key created', {
        keyRecordId: created.key.id,
        name: created.key.name,
        expireAt: created.key.expireAt,
      });
    } catch (error) {
      // 409: the hash exists, i.e. an earlier attempt made it after our list was read.
      if (!isConflict(error)) throw error;
      ctx.log.info('key already exists (409)', { keyName: pending.keyName });
    }
  });
}

/**
 * testSecret: the pending key must authenticate a read call. A placeholder without a value is
 * RotateSecret's configuration test (RotateImmediately=false): nothing to test, nothing made.
 */
export async function testSecret(deps: RotationDeps, request: RotationRequest): Promise<void> {
  const ctx = await begin(deps, 'testSecret', request);
  if (!ctx) return;
  const text = await ctx.versions.read(AWSPENDING, request.token);
  if (text === undefined) {
    ctx.log.info('pending version has no value: configuration test only');
    return;
  }
  const pending = parsePending(request.secretId, text);
  const credentials = staticCredentials(
    `${request.secretId}:AWSPENDING`,
    pending,
    managementKeySecret,
  );
  await withApi(deps, credentials, async (api) => {
    const call = deps.config.testCall;
    if (call.kind === 'list-keys') await api.listKeys();
    else await api.listPipes(call.serviceId);
  });
  ctx.log.info('pending key authenticates', { test: deps.config.testCall.kind });
}

/**
 * finishSecret: cut the previous key to now + grace (never lengthen), disable the rotator's
 * other usable keys and delete its expired ones, then move AWSCURRENT. The label moves last, so every API change before it is
 * redone by a retry; once it has moved, a retry is a no-op.
 */
export async function finishSecret(deps: RotationDeps, request: RotationRequest): Promise<void> {
  const ctx = await begin(deps, 'finishSecret', request);
  if (!ctx) return;
  const pending = await readPending(ctx, request);
  const current = parseCurrent(request.secretId, await ctx.versions.read(AWSCURRENT));
  // The new key is tested and is the one that stays: use it unless an admin secret is configured.
  const credentials =
    deps.config.adminSecretId === undefined
      ? staticCredentials(`${request.secretId}:AWSPENDING`, pending, managementKeySecret)
      : await adminCredentials(deps, request.secretId, current);
  await withApi(deps, credentials, async (api) => {
    const records = await api.listKeys();
    const next = findKeyRecord(records, pending);
    if (!next) {
      throw new RotationError(
        request.secretId,
        `No key matches the AWSPENDING version of ${request.secretId} (name ${pending.keyName}); setSecret has not completed`,
      );
    }
    const previous = findKeyRecord(records, current);
    if (previous) await cutToGrace(deps, ctx, api, previous);
    else ctx.log.warn('the AWSCURRENT key has no record (deleted?): nothing to cut');
    const others = records.filter(
      (r) => r.id !== next.id && r.id !== previous?.id && isOwned(r, ctx.ownedPrefix),
    );
    await tidyEarlierKeys(deps, ctx, api, others);
  });
  await ctx.versions.promote(request.token, ctx.state.currentVersionId);
  ctx.log.info('AWSCURRENT moved to the new version', { expireAt: pending.expireAt });
}

/**
 * The rotator's other keys: a usable one is disabled (at most two stay usable); expired ones
 * are deleted, oldest first and at most MAX_EXPIRED_DELETES per run, so the organization never
 * creeps toward its 100-key limit. Never the current or previous key (the caller leaves them out).
 */
async function tidyEarlierKeys(
  deps: RotationDeps,
  ctx: StepContext,
  api: RotationApi,
  others: readonly KeyRecord[],
): Promise<void> {
  const now = deps.now();
  const expired = others
    .filter((r) => isExpired(r, now))
    .sort((a, b) => Date.parse(a.expireAt!) - Date.parse(b.expireAt!));
  for (const record of expired.slice(0, MAX_EXPIRED_DELETES)) {
    try {
      await api.deleteKey(record.id);
    } catch (error) {
      // Gone already (an earlier attempt of this step): that is the goal.
      if (!isNotFound(error)) throw error;
    }
    ctx.log.info('deleted an expired rotator key', {
      keyRecordId: record.id,
      name: record.name,
      expireAt: record.expireAt,
    });
  }
  for (const record of others.filter((r) => isUsable(r, now))) {
    await api.updateKey(record.id, { state: 'disabled' });
    ctx.log.info('disabled an earlier rotator key', { keyRecordId: record.id, name: record.name });
  }
}

async function cutToGrace(
  deps: RotationDeps,
  ctx: StepContext,
  api: RotationApi,
  previous: KeyRecord,
): Promise<void> {
  const graceEnd = deps.now() + deps.config.gracePeriodMs;
  const existing = previous.expireAt === null ? Infinity : Date.parse(previous.expireAt);
  if (existing <= graceEnd) return;
  const expireAt = new Date(graceEnd).toISOString();
  await api.updateKey(previous.id, { expireAt });
  ctx.log.info('previous key cut to grace', { keyRecordId: previous.id, expireAt });
}

async function readPending(ctx: StepContext, request: RotationRequest): Promise<RotatedKeySecret> {
  const text = await ctx.versions.read(AWSPENDING, request.token);
  if (text === undefined) {
    throw new RotationError(
      request.secretId,
      `The AWSPENDING version ${request.token} of ${request.secretId} has no value; createSecret has not run`,
    );
  }
  return parsePending(request.secretId, text);
}

/** Single-key mode: the current key manages keys; else the configured admin secret's key. */
async function adminCredentials(
  deps: RotationDeps,
  secretId: string,
  current: ManagementKeySecret,
): Promise<CredentialProvider<ManagementKeySecret>> {
  const adminId = deps.config.adminSecretId;
  if (adminId === undefined) {
    return staticCredentials(`${secretId}:AWSCURRENT`, current, managementKeySecret);
  }
  const admin = new SecretVersions(deps.secrets, adminId);
  const value = parseCurrent(adminId, await admin.read(AWSCURRENT));
  return staticCredentials(`${adminId}:AWSCURRENT`, value, managementKeySecret);
}

async function withApi<T>(
  deps: RotationDeps,
  credentials: CredentialProvider<ManagementKeySecret>,
  run: (api: RotationApi) => Promise<T>,
): Promise<T> {
  const api = deps.connect(credentials);
  try {
    return await run(api);
  } finally {
    api.close();
  }
}

/**
 * What RotateSecret does, run locally (CLI against an account without the deployed function):
 * resume an unfinished rotation with its token, else store a new AWSPENDING version under a
 * fresh token; then the four steps in order. Returns the token.
 */
export async function rotateLocally(
  deps: RotationDeps,
  secretId: string,
  newToken: () => string,
  onStep?: (step: RotationStep) => void,
): Promise<string> {
  const versions = new SecretVersions(deps.secrets, secretId);
  const state = await versions.describe();
  if (!state.rotationEnabled)
    throw new RotationError(secretId, `Secret ${secretId} is not enabled for rotation`);
  const unfinished = Object.keys(state.stages).find(
    (id) => state.stages[id]?.includes(AWSPENDING) && !state.stages[id]?.includes(AWSCURRENT),
  );
  const token = unfinished ?? newToken();
  if (!unfinished) {
    // Secrets Manager makes a valueless AWSPENDING placeholder here; the public API cannot, so
    // store the new value at once (exactly what createSecret would put there).
    const current = parseCurrent(secretId, await versions.read(AWSCURRENT));
    const ownedPrefix = ownedNamePrefix(deps.config.namePrefix, state.name);
    const log = (deps.logger ?? silentLogger).child({
      secretId,
      versionId: token,
      step: 'createSecret',
    });
    await storePending(deps, { versions, state, log, ownedPrefix }, token, current);
  }
  for (const step of ROTATION_STEPS) {
    onStep?.(step);
    await runRotationStep(deps, step, { secretId, token });
  }
  return token;
}
