import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { isConflict, isForbidden, isNotFound, isUnauthorized } from '../api';
import type { KeyReadOperations, KeyWriteOperations } from '../api/management/keys';
import type { PipeProbeOperations } from '../api/management/pipe-probe';
import { NotConfiguredError } from '../config';
import { staticCredentials } from '../credentials';
import type { CredentialProvider } from '../credentials/types';
import { silentLogger, type Logger } from '../log';
import { managementKeySecret, type KeyRecord, type ManagementKeySecret } from '../schemas';
import { currentKeyRecord, roleAssignmentFor } from './assignment';
import type { RotationConfig } from './config';
import { RotationError } from './errors';
import { keyTagsFor } from './managed';
import { generateKeyMaterial, hashDataFor, keySuffixOf } from './material';
import { findKeyRecord, isOwned, isUsable, keyNameFor, ownedNamePrefix } from './ownership';
import { testCallFor, tidyPlan, type ResolvedTestCall } from './policy';
import { nextSecretValue, parseCurrent, parsePending, type RotatedKeySecret } from './secret';
import {
  AWSCURRENT,
  AWSPENDING,
  AWSPREVIOUS,
  checkToken,
  SecretVersions,
  type SecretState,
} from './stages';

export const ROTATION_STEPS = ['createSecret', 'setSecret', 'testSecret', 'finishSecret'] as const;
export type RotationStep = (typeof ROTATION_STEPS)[number];

/** The operation groups the rotator's clients carry (lib/keys/deps.ts binds them). */
export type RotationApiOperations = KeyReadOperations & KeyWriteOperations & PipeProbeOperations;

/** The management calls the rotator makes (a ManagementClient fits). */
export type RotationApi = Pick<
  RotationApiOperations,
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

interface RotationRequest {
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
  request: RotationRequest,
): Promise<StepContext | undefined> {
  const ctx = await open(deps, step, request);
  if (ctx.done) {
    ctx.log.info('rotation step skipped: the version is already AWSCURRENT');
    return undefined;
  }
  return ctx;
}

/** The step's context, and whether its token is AWSCURRENT already (a finished rotation). */
async function open(
  deps: RotationDeps,
  step: RotationStep,
  { secretId, token }: RotationRequest,
): Promise<StepContext & { done: boolean }> {
  const log = (deps.logger ?? silentLogger).child({ secretId, versionId: token, step });
  const versions = new SecretVersions(deps.secrets, secretId);
  const verdict = await checkToken(versions, token);
  const ownedPrefix = ownedNamePrefix(deps.config.namePrefix, verdict.state.arn);
  return { versions, state: verdict.state, log, ownedPrefix, done: !verdict.proceed };
}

/**
 * createSecret: generate the new key locally and store it under AWSPENDING before the key
 * exists, so no crash can leave a key whose secret is lost. Nothing to do if the value exists.
 */
async function createSecret(deps: RotationDeps, request: RotationRequest): Promise<void> {
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
 * setSecret: create the key with hashData (the service never sees the secret), the roles of
 * the current key's record, the IP list and the expiry stored with it. Idempotent: a key already made by an
 * earlier attempt is found in the list (or answers 409) and is not made twice.
 */
async function setSecret(deps: RotationDeps, request: RotationRequest): Promise<void> {
  const ctx = await begin(deps, 'setSecret', request);
  if (!ctx) return;
  // The current value first: an unseeded secret is "not configured yet", not a missing value.
  const current = parseCurrent(request.secretId, await ctx.versions.read(AWSCURRENT));
  const pending = await readPending(ctx, request);
  const now = deps.now();
  if (Date.parse(pending.expireAt) <= now) {
    throw new RotationError(
      `The AWSPENDING version of ${request.secretId} expired (${pending.expireAt}) before its key was made; ` +
        'remove its AWSPENDING label and rotate again',
      { secretId: request.secretId },
    );
  }
  await withApi(deps, await adminCredentials(deps, request.secretId, current), async (api) => {
    const records = await listKeysOrWayBack(deps, request.secretId, current, api);
    if (findKeyRecord(records, pending)) {
      ctx.log.info('key already exists from an earlier attempt', { keyName: pending.keyName });
      return;
    }
    // Decided before the first write: the roles come from the current key's own record (never
    // from the secret), and a key we could not give them is not worth a disable.
    const currentRecord = currentKeyRecord(request.secretId, records, current);
    const assignment = roleAssignmentFor(request.secretId, currentRecord, current.roles);
    // At most two rotator keys stay usable: the current one and the one made now. Expired
    // keys are unusable already (finishSecret deletes them): no call spent on them here.
    for (const record of records) {
      if (
        isOwned(record, ctx.ownedPrefix) &&
        record.id !== currentRecord.id &&
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
        ...assignment,
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
 * The key list, read with the key that manages keys. Without an admin secret that is the current
 * key itself: once it has expired (rotation was off too long), the service refuses it and only
 * a person can make its successor, so the error says how.
 */
async function listKeysOrWayBack(
  deps: RotationDeps,
  secretId: string,
  current: ManagementKeySecret,
  api: RotationApi,
): Promise<KeyRecord[]> {
  try {
    return await api.listKeys();
  } catch (error) {
    if (deps.config.adminSecretId !== undefined || !isUnauthorized(error)) throw error;
    throw new RotationError(
      `${secretId}: the service refuses its current key (…${keySuffixOf(current.keyId)}: expired, ` +
        'disabled or deleted) and no admin secret is configured to make its replacement with. ' +
        'Make a key with the same roles in the console, then run ' +
        `\`cloudops keys adopt --key-id <its key ID> --secret-id ${secretId}\` ` +
        '(it clears this rotation and turns rotation on); or set CLOUDOPS_ROTATION_ADMIN_SECRET_ID ' +
        'to a secret holding an admin key and rotate again',
      { secretId, cause: error },
    );
  }
}

/**
 * testSecret: the pending key must authenticate a call its roles allow (see testCallFor). A
 * placeholder without a value is RotateSecret's configuration test (RotateImmediately=false):
 * nothing to test, nothing made. A key that fails its test is deleted before the error goes
 * up, so repeated failures never pile up keys toward the organization's 100-key limit; a retry
 * makes it again from the same AWSPENDING value.
 */
async function testSecret(deps: RotationDeps, request: RotationRequest): Promise<void> {
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
  const call = testCallFor(deps.config.testCall, pending);
  try {
    await withApi(deps, credentials, (api) => runTestCall(api, call));
  } catch (error) {
    await deleteUntestedKey(deps, ctx, request, pending);
    throw error;
  }
  ctx.log.info('pending key authenticates', { test: call.kind });
}

async function runTestCall(api: RotationApi, call: ResolvedTestCall): Promise<void> {
  if (call.kind === 'list-pipes') {
    await api.listPipes(call.serviceId);
    return;
  }
  try {
    await api.listKeys();
  } catch (error) {
    if (!(call.kind === 'authenticate' && isForbidden(error))) throw error;
  }
}

async function deleteUntestedKey(
  deps: RotationDeps,
  ctx: StepContext,
  request: RotationRequest,
  pending: RotatedKeySecret,
): Promise<void> {
  try {
    const current = parseCurrent(request.secretId, await ctx.versions.read(AWSCURRENT));
    await withApi(deps, await adminCredentials(deps, request.secretId, current), async (api) => {
      const record = findKeyRecord(await api.listKeys(), pending);
      if (!record) return;
      await deleteIfPresent(api, record.id);
      ctx.log.warn('deleted the key that failed its test', {
        keyRecordId: record.id,
        name: record.name,
      });
    });
  } catch (cleanup) {
    // The test failure is what the operator must see; the leftover key expires on its own.
    ctx.log.error('could not delete the key that failed its test', {
      error: cleanup instanceof Error ? cleanup.message : String(cleanup),
    });
  }
}

async function deleteIfPresent(api: RotationApi, keyRecordId: string): Promise<void> {
  try {
    await api.deleteKey(keyRecordId);
  } catch (error) {
    // Gone already (an earlier attempt): that is the goal.
    if (!isNotFound(error)) throw error;
  }
}

/**
 * finishSecret: disable the rotator's other usable keys and delete its expired ones, move
 * AWSCURRENT, only then cut the previous keys to now + grace (never lengthen), and last drop
 * AWSPENDING. The label moves before the cut: if the move keeps failing, every consumer still
 * reads a key that works for its whole lifetime. A retry after the move (the token is
 * AWSCURRENT but still AWSPENDING) redoes the cut; once AWSPENDING is gone a retry is a no-op.
 */
async function finishSecret(deps: RotationDeps, request: RotationRequest): Promise<void> {
  const ctx = await open(deps, 'finishSecret', request);
  if (ctx.done) {
    if (!ctx.state.stages[request.token]?.includes(AWSPENDING)) {
      ctx.log.info('rotation step skipped: the version is already AWSCURRENT');
      return;
    }
    const current = parseCurrent(request.secretId, await ctx.versions.read(AWSCURRENT));
    const replaced = await readPrevious(ctx);
    await withApi(deps, await finishCredentials(deps, request, current, current), async (api) => {
      const records = await api.listKeys();
      await tagKeys(ctx, records, current, replaced);
      await cutPrevious(deps, ctx, api, records, [current], [replaced]);
    });
    await ctx.versions.dropPending(request.token);
    return;
  }
  const current = await currentOrRelease(ctx, request);
  const pending = await readPending(ctx, request);
  const older = await readPrevious(ctx);
  await withApi(deps, await finishCredentials(deps, request, pending, current), async (api) => {
    const records = await api.listKeys();
    const next = findKeyRecord(records, pending);
    if (!next) {
      throw new RotationError(
        `No key matches the AWSPENDING version of ${request.secretId} (name ${pending.keyName}); setSecret has not completed`,
        { secretId: request.secretId },
      );
    }
    const previous = findKeyRecord(records, current);
    const others = records.filter(
      (r) => r.id !== next.id && r.id !== previous?.id && isOwned(r, ctx.ownedPrefix),
    );
    await tidyEarlierKeys(deps, ctx, api, others);
    await ctx.versions.moveCurrent(request.token, ctx.state.currentVersionId);
    ctx.log.info('AWSCURRENT moved to the new version', { expireAt: pending.expireAt });
    await tagKeys(ctx, records, pending, current);
    if (!previous) ctx.log.warn('the previous key has no record (deleted?): nothing to cut');
    await cutPrevious(deps, ctx, api, records, [pending], [current, older]);
  });
  await ctx.versions.dropPending(request.token);
}

/**
 * Records on the secret which key it now holds and which one it replaced, so the key sentinel
 * and the audit know it without reading the value. After the label moved (the truth first); a
 * retry of this step writes them again.
 */
async function tagKeys(
  ctx: StepContext,
  records: readonly KeyRecord[],
  held: ManagementKeySecret,
  replaced: ManagementKeySecret | undefined,
): Promise<void> {
  const record = findKeyRecord(records, held);
  if (!record) return;
  const previous = replaced && findKeyRecord(records, replaced);
  await ctx.versions.tag(
    keyTagsFor({
      keyRecordId: record.id,
      keySuffix: record.keySuffix,
      expireAt: record.expireAt,
      ...(previous && previous.id !== record.id ? { previousKeyRecordId: previous.id } : {}),
    }),
  );
}

/**
 * Cuts to grace the key that was AWSCURRENT before the move and the one AWSPREVIOUS held (a
 * rotation that stopped after its move and was never finished leaves that one uncut), never
 * a key that is current now.
 */
async function cutPrevious(
  deps: RotationDeps,
  ctx: StepContext,
  api: RotationApi,
  records: readonly KeyRecord[],
  keep: readonly ManagementKeySecret[],
  replaced: readonly (ManagementKeySecret | undefined)[],
): Promise<void> {
  const keepIds = new Set(keep.map((k) => findKeyRecord(records, k)?.id));
  const targets = new Map<string, KeyRecord>();
  for (const value of replaced) {
    const record = value && findKeyRecord(records, value);
    if (record && !keepIds.has(record.id)) targets.set(record.id, record);
  }
  for (const record of targets.values()) await cutToGrace(deps, ctx, api, record);
}

/**
 * The current value. A secret still holding its deploy-time placeholder was never seeded: its
 * rotation (the schedule runs regardless) ends here, dropping its own AWSPENDING label so the
 * next one starts clean, and the handler reports "not configured yet" (one info line).
 */
async function currentOrRelease(
  ctx: StepContext,
  request: RotationRequest,
): Promise<ManagementKeySecret> {
  try {
    return parseCurrent(request.secretId, await ctx.versions.read(AWSCURRENT));
  } catch (error) {
    if (error instanceof NotConfiguredError) await ctx.versions.dropPending(request.token);
    throw error;
  }
}

/** The key AWSPREVIOUS holds, if the secret has one (the placeholder a seed replaced holds none). */
async function readPrevious(ctx: StepContext): Promise<ManagementKeySecret | undefined> {
  const version = SecretVersions.versionWith(ctx.state, AWSPREVIOUS);
  if (version === undefined) return undefined;
  try {
    return parseCurrent(ctx.versions.secretId, await ctx.versions.read(AWSPREVIOUS, version));
  } catch (error) {
    if (error instanceof NotConfiguredError) return undefined;
    throw error;
  }
}

/** The new key is tested and is the one that stays: use it unless an admin secret is configured. */
async function finishCredentials(
  deps: RotationDeps,
  request: RotationRequest,
  newKey: ManagementKeySecret,
  current: ManagementKeySecret,
): Promise<CredentialProvider<ManagementKeySecret>> {
  return deps.config.adminSecretId === undefined
    ? staticCredentials(`${request.secretId}:new key`, newKey, managementKeySecret)
    : adminCredentials(deps, request.secretId, current);
}

/** Carries out tidyPlan over the rotator's other keys (never the current or previous key). */
async function tidyEarlierKeys(
  deps: RotationDeps,
  ctx: StepContext,
  api: RotationApi,
  others: readonly KeyRecord[],
): Promise<void> {
  const { remove, disable } = tidyPlan(others, deps.now());
  for (const record of remove) {
    await deleteIfPresent(api, record.id);
    ctx.log.info('deleted an expired rotator key', {
      keyRecordId: record.id,
      name: record.name,
      expireAt: record.expireAt,
    });
  }
  for (const record of disable) {
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
      `The AWSPENDING version ${request.token} of ${request.secretId} has no value; createSecret has not run`,
      { secretId: request.secretId },
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

/** Every key record, listed with the key that manages keys (the admin secret's, else `current`). */
export async function listKeysAsAdmin(
  deps: RotationDeps,
  secretId: string,
  current: ManagementKeySecret,
): Promise<KeyRecord[]> {
  return withApi(deps, await adminCredentials(deps, secretId, current), (api) => api.listKeys());
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
    throw new RotationError(`Secret ${secretId} is not enabled for rotation`, { secretId });
  const unfinished = Object.keys(state.stages).find(
    (id) => state.stages[id]?.includes(AWSPENDING) && !state.stages[id]?.includes(AWSCURRENT),
  );
  const token = unfinished ?? newToken();
  if (!unfinished) {
    // Secrets Manager makes a valueless AWSPENDING placeholder here; the public API cannot, so
    // store the new value at once (exactly what createSecret would put there).
    const current = parseCurrent(secretId, await versions.read(AWSCURRENT));
    const ownedPrefix = ownedNamePrefix(deps.config.namePrefix, state.arn);
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
