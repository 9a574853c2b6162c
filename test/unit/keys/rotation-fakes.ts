/**
 * In-memory Secrets Manager and management API for the rotator's unit tests: no sockets, no
 * sandbox, so a mutation run can afford to run them for every mutant. They keep the rules the
 * rotator relies on (staging labels move like AWS's; a key authenticates only while enabled and
 * unexpired; key management needs the admin role; a hash already used answers 409).
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  TagResourceCommand,
  ResourceNotFoundException,
  type SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import { apiError as makeApiError } from '../../../lib/api/errors';
import {
  DEFAULT_ROTATION_CONFIG,
  generateKeyMaterial,
  hashDataFor,
  ownedNamePrefix,
  type RotationApi,
  type RotationConfig,
  type RotationDeps,
} from '../../../lib/keys';
import { createLogger } from '../../../lib/log';
import type { CreateKeyRequest, KeyRecord, ManagementKeySecret } from '../../../lib/schemas';

/** The service's own hashing of a key ID or secret (API-FACTS, hashData), kept apart from lib's. */
const sha256Base64 = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64');

export const DAY = 86_400_000;
export const T0 = Date.parse('2026-01-01T00:00:00.000Z');
export const ORG = '0b6c1f0e-3c1e-4f43-9c3a-2b1f7f3b9a11';
export const CONFIG: RotationConfig = {
  ...DEFAULT_ROTATION_CONFIG,
  lifetimeMs: 30 * DAY,
  gracePeriodMs: DAY,
};

interface Version {
  value: string | undefined;
  stages: string[];
}

/** One secret with versions, staging labels and tags, answering the commands the rotator sends. */
export class FakeSecrets {
  readonly versions = new Map<string, Version>();
  rotationEnabled = true;
  writes: string[] = [];
  /** What TagResource wrote (the key the secret holds, for the sentinel and the audit). */
  readonly tags = new Map<string, string>();
  /** Fail the next UpdateSecretVersionStage that moves AWSCURRENT (a label move that fails). */
  failMoveCurrent = 0;

  constructor(
    readonly name: string,
    readonly arn: string,
  ) {}

  seed(versionId: string, value: string | undefined, stages: string[]): void {
    this.versions.set(versionId, { value, stages });
  }

  /** The version that holds `stage`. */
  holder(stage: string): string | undefined {
    return [...this.versions].find(([, v]) => v.stages.includes(stage))?.[0];
  }

  value(stage: string): ManagementKeySecret & { keyName?: string } {
    const id = this.holder(stage);
    const text = id === undefined ? undefined : this.versions.get(id)?.value;
    if (text === undefined) throw new Error(`no value under ${stage}`);
    return JSON.parse(text) as ManagementKeySecret & { keyName?: string };
  }

  stagesOf(versionId: string): string[] | undefined {
    return this.versions.get(versionId)?.stages;
  }

  private label(stage: string, to: string | undefined): void {
    for (const v of this.versions.values()) v.stages = v.stages.filter((s) => s !== stage);
    if (to !== undefined) this.versions.get(to)?.stages.push(stage);
  }

  private notFound(message: string): ResourceNotFoundException {
    return new ResourceNotFoundException({ message, $metadata: {} });
  }

  handle(command: unknown): unknown {
    if (command instanceof DescribeSecretCommand) {
      const stages: Record<string, string[]> = {};
      for (const [id, v] of this.versions) if (v.stages.length > 0) stages[id] = [...v.stages];
      return {
        Name: this.name,
        ARN: this.arn,
        RotationEnabled: this.rotationEnabled,
        VersionIdsToStages: stages,
      };
    }
    if (command instanceof GetSecretValueCommand) {
      const { VersionId, VersionStage } = command.input;
      const id = VersionId ?? this.holder(VersionStage ?? 'AWSCURRENT');
      const v = id === undefined ? undefined : this.versions.get(id);
      if (!v || (VersionStage !== undefined && !v.stages.includes(VersionStage)))
        throw this.notFound(`no version ${VersionId ?? ''} with ${VersionStage ?? ''}`);
      if (v.value === undefined) throw this.notFound('the version has no value');
      return { SecretString: v.value, VersionId: id };
    }
    if (command instanceof PutSecretValueCommand) {
      const { ClientRequestToken, SecretString, VersionStages } = command.input;
      const token = ClientRequestToken!;
      this.writes.push(`put:${token}`);
      const existing = this.versions.get(token);
      if (existing?.value !== undefined && existing.value !== SecretString)
        throw new Error('ResourceExistsException: the version exists with another value');
      if (!existing) this.versions.set(token, { value: SecretString, stages: [] });
      else existing.value = SecretString;
      for (const stage of VersionStages ?? []) this.label(stage, token);
      return { VersionId: token };
    }
    if (command instanceof UpdateSecretVersionStageCommand) {
      const { VersionStage, MoveToVersionId, RemoveFromVersionId } = command.input;
      this.writes.push(`stage:${VersionStage!}:${MoveToVersionId ?? '-'}`);
      if (VersionStage === 'AWSCURRENT' && this.failMoveCurrent > 0) {
        this.failMoveCurrent -= 1;
        throw new Error('InternalServiceError: the label move failed');
      }
      if (MoveToVersionId === undefined) {
        const v = this.versions.get(RemoveFromVersionId!);
        if (v) v.stages = v.stages.filter((s) => s !== VersionStage);
        return {};
      }
      if (VersionStage === 'AWSCURRENT') this.label('AWSPREVIOUS', this.holder('AWSCURRENT'));
      this.label(VersionStage!, MoveToVersionId);
      return {};
    }
    if (command instanceof TagResourceCommand) {
      for (const tag of command.input.Tags ?? []) this.tags.set(tag.Key!, tag.Value!);
      return {};
    }
    throw new Error(`unexpected command ${String(command)}`);
  }
}

/** The Secrets Manager client: routes each command to its secret by SecretId. */
export class FakeSecretsManager {
  readonly secrets = new Map<string, FakeSecrets>();

  add(name: string, arn: string): FakeSecrets {
    const secret = new FakeSecrets(name, arn);
    this.secrets.set(name, secret);
    return secret;
  }

  send(command: { input: { SecretId?: string } }): Promise<unknown> {
    return Promise.resolve().then(() => {
      const secret = this.secrets.get(command.input.SecretId ?? '');
      if (!secret)
        throw new ResourceNotFoundException({ message: 'no such secret', $metadata: {} });
      return secret.handle(command);
    });
  }
}

interface FakeKey extends KeyRecord {
  keyIdHash: string;
  keySecretHash: string;
}

const apiError = (status: number, method: string, path: string) =>
  makeApiError({ status, method, path, apiMessage: `status ${status}` });

/** The organization's keys as the management API keeps them. */
export class FakeKeys {
  readonly keys: FakeKey[] = [];
  /** Every call as `method:keyRecordId?` with the key that authenticated it (its name). */
  readonly calls: string[] = [];
  readonly callers: string[] = [];
  /** Make the next call of a method fail with this status. */
  readonly failNext = new Map<string, number[]>();
  /** Called before each operation runs: lets a test change the world mid-call. */
  beforeCall: ((method: string) => void) | undefined;

  constructor(private readonly now: () => number) {}

  /** A key that exists already (seeded by the test), with its secret value. */
  add(
    fields: Partial<KeyRecord> & { name: string },
    roles: string[] = ['admin'],
  ): { record: FakeKey; secret: ManagementKeySecret } {
    const material = generateKeyMaterial();
    const hash = hashDataFor(material);
    const record: FakeKey = {
      id: randomUUID(),
      keySuffix: hash.keyIdSuffix,
      expireAt: null,
      state: 'enabled',
      roles,
      keyIdHash: hash.keyIdHash,
      keySecretHash: hash.keySecretHash,
      ...fields,
    };
    this.keys.push(record);
    return {
      record,
      secret: {
        organizationId: ORG,
        keyId: material.keyId,
        keySecret: material.keySecret,
        expireAt: null,
      },
    };
  }

  byName(name: string): FakeKey | undefined {
    return this.keys.find((k) => k.name === name);
  }

  private usable(k: KeyRecord): boolean {
    return k.state !== 'disabled' && (k.expireAt === null || Date.parse(k.expireAt) > this.now());
  }

  connect = (credentials: { get(): Promise<ManagementKeySecret> }): RotationApi => {
    const run = async <T>(method: string, admin: boolean, fn: () => T): Promise<T> => {
      const auth = await credentials.get();
      const caller = this.keys.find(
        (k) =>
          k.keyIdHash === sha256Base64(auth.keyId) &&
          k.keySecretHash === sha256Base64(auth.keySecret),
      );
      this.callers.push(caller?.name ?? '(unknown)');
      this.beforeCall?.(method);
      const planned = this.failNext.get(method);
      const status = planned?.shift();
      if (status !== undefined) throw apiError(status, method, `/${method}`);
      if (!caller || !this.usable(caller)) throw apiError(401, method, `/${method}`);
      if (admin && !(caller.roles ?? []).includes('admin')) throw apiError(403, method, method);
      return fn();
    };
    const find = (id: string) => {
      const key = this.keys.find((k) => k.id === id);
      if (!key) throw apiError(404, 'GET', `/keys/${id}`);
      return key;
    };
    const view = (k: FakeKey): KeyRecord => {
      const { keyIdHash: _a, keySecretHash: _b, ...record } = k;
      return structuredClone(record);
    };
    return {
      listKeys: () =>
        run('listKeys', true, () => {
          this.calls.push('listKeys');
          return this.keys.map(view);
        }),
      listPipes: (serviceId: string) =>
        run('listPipes', false, () => {
          this.calls.push(`listPipes:${serviceId}`);
          return [];
        }),
      createKey: (body: CreateKeyRequest) =>
        run('createKey', true, () => {
          this.calls.push(`createKey:${body.name}`);
          if (this.keys.some((k) => k.keyIdHash === body.hashData?.keyIdHash))
            throw apiError(409, 'POST', '/keys');
          const key: FakeKey = {
            id: randomUUID(),
            name: body.name,
            keySuffix: body.hashData!.keyIdSuffix,
            expireAt: body.expireAt ?? null,
            state: 'enabled',
            roles: body.roles ?? [],
            ...(body.assignedRoleIds
              ? { assignedRoles: body.assignedRoleIds.map((roleId) => ({ roleId })) }
              : {}),
            ...(body.ipAccessList ? { ipAccessList: body.ipAccessList } : {}),
            keyIdHash: body.hashData!.keyIdHash,
            keySecretHash: body.hashData!.keySecretHash,
          };
          this.keys.push(key);
          return { key: view(key) };
        }),
      updateKey: (id: string, body: { state?: 'enabled' | 'disabled'; expireAt?: string | null }) =>
        run('updateKey', true, () => {
          const key = find(id);
          this.calls.push(
            `updateKey:${key.name}:${body.state ?? ''}${body.expireAt !== undefined ? `expireAt=${body.expireAt}` : ''}`,
          );
          Object.assign(key, body);
          return view(key);
        }),
      deleteKey: (id: string) =>
        run('deleteKey', true, () => {
          const key = find(id);
          this.calls.push(`deleteKey:${key.name}`);
          this.keys.splice(this.keys.indexOf(key), 1);
        }),
      close: () => undefined,
    };
  };
}

export interface World {
  sm: FakeSecretsManager;
  secrets: FakeSecrets;
  keys: FakeKeys;
  deps: RotationDeps;
  clock: { now: number };
  /** The owned name prefix of this secret's keys. */
  prefix: string;
  /** The seeded current key. */
  current: { record: KeyRecord; secret: ManagementKeySecret };
}

export const SECRET = 'cloudops/management-key';
export const ARN = `arn:aws:secretsmanager:us-east-1:111111111111:secret:${SECRET}-AbCdEf`;

/** A secret whose AWSCURRENT holds an admin key (no expiry), rotation enabled. */
export function world(
  config: RotationConfig = CONFIG,
  options: { roles?: string[]; secretRoles?: boolean; owned?: boolean } = {},
): World {
  const clock = { now: T0 };
  const keys = new FakeKeys(() => clock.now);
  const sm = new FakeSecretsManager();
  const secrets = sm.add(SECRET, ARN);
  const prefix = ownedNamePrefix(config.namePrefix, ARN);
  const roles = options.roles ?? ['admin'];
  // owned: the current key was made by this rotator (every key after the first rotation is).
  const current = keys.add(
    { name: options.owned ? `${prefix}20251201T000000.000Z` : 'seeded-by-hand' },
    roles,
  );
  secrets.seed(
    'v0',
    JSON.stringify({
      ...current.secret,
      ...(options.secretRoles === false ? {} : { roles }),
    }),
    ['AWSCURRENT'],
  );
  const deps: RotationDeps = {
    secrets: sm as unknown as SecretsManagerClient,
    connect: keys.connect,
    now: () => clock.now,
    config,
    // The process-wide sink: the leak scan checks every line the rotator writes.
    logger: createLogger({ level: 'debug', fields: { test: 'rotation-guards' } }),
  };
  return { sm, secrets, keys, deps, clock, prefix, current };
}
