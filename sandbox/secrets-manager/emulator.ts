import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SecretsManagerFault } from './errors';
import { operations } from './operations';
import type { RotationInvoker, RotationTiming } from './rotation';
import { secretsManagerState, type RotationRules, type SecretsManagerState } from './state';
import { SecretStore } from './store';

const MAX_BODY_BYTES = 1024 * 1024;
const JSON_1_1 = 'application/x-amz-json-1.1';
const TARGET_PREFIX = 'secretsmanager.';

/** One line of the request log: never a secret value. */
interface SecretsManagerRequestLogEntry {
  operation: string;
  status: number;
  /** Secret name (resolved from an ARN when known), when the request named one. */
  secretName?: string;
  errorType?: string;
}

export interface SecretsManagerEmulatorOptions {
  /** Epoch milliseconds; the sandbox passes its movable clock. */
  now?: () => number;
  /** Called after every change of state (persistence). */
  onChange?: () => void;
  /** State from an earlier `toJSON()`. */
  state?: SecretsManagerState;
  invokeRotation?: RotationInvoker;
  /** @default 'sync' (RotateSecret answers after the four steps); 'async' answers first, as AWS does */
  rotationTiming?: RotationTiming;
  onRequest?: (entry: SecretsManagerRequestLogEntry) => void;
  region?: string;
  accountId?: string;
}

interface CreateSecretSeed {
  name: string;
  secretString: string;
  description?: string;
  rotationEnabled?: boolean;
  rotationLambdaArn?: string;
  rotationRules?: RotationRules;
}

export interface SecretsManagerEmulator {
  /** Node `request` listener for `POST /` with AWS JSON 1.1. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Seed a secret without HTTP (its first version is AWSCURRENT). */
  createSecret(input: CreateSecretSeed): { arn: string; versionId: string };
  toJSON(): SecretsManagerState;
  setRotationInvoker(fn: RotationInvoker | undefined): void;
  /** Resolves once every rotation started in the background has ended. */
  settled(): Promise<void>;
  /** Request-log hook; may be set after creation. */
  onRequest?: ((entry: SecretsManagerRequestLogEntry) => void) | undefined;
  /**
   * IAM, as far as reads go: the caller signing with `accessKeyId` may read (GetSecretValue,
   * DescribeSecret) the named secrets only; any other read answers AccessDeniedException, as
   * AWS does for a secret the caller's policy does not grant, whether or not it exists. A key
   * never limited may read everything.
   */
  grantReads(accessKeyId: string, secretNames: readonly string[]): void;
}

/** The operations grantReads limits. */
const READS = new Set(['GetSecretValue', 'DescribeSecret']);

/**
 * A Secrets Manager endpoint for the real `@aws-sdk/client-secrets-manager`: AWS JSON 1.1
 * over HTTP, errors as `{"__type", "message"}` with status 400, timestamps in epoch seconds.
 * An Authorization header must be present (the SDK signs with SigV4) but is not verified.
 */
export function createSecretsManagerEmulator(
  options: SecretsManagerEmulatorOptions = {},
): SecretsManagerEmulator {
  const state = options.state
    ? secretsManagerState.parse(structuredClone(options.state))
    : { secrets: [] };
  const store = new SecretStore(state, options.now ?? Date.now, options.region, options.accountId);
  let invoker = options.invokeRotation;
  const changed = () => options.onChange?.();
  const running = new Set<Promise<void>>();
  const track = (run: Promise<void>) => {
    running.add(run);
    void run.finally(() => running.delete(run));
  };

  const readable = new Map<string, ReadonlySet<string>>();
  const emulator: SecretsManagerEmulator = {
    onRequest: options.onRequest,

    grantReads(accessKeyId, secretNames) {
      readable.set(accessKeyId, new Set(secretNames));
    },

    handle(req, res) {
      void serve(req, res);
    },

    createSecret(input) {
      const { secret, version } = store.create({
        Name: input.name,
        Description: input.description,
        value: { SecretString: input.secretString },
      });
      if (input.rotationEnabled || input.rotationLambdaArn) {
        secret.rotationEnabled = input.rotationEnabled ?? true;
        if (input.rotationLambdaArn) secret.rotationLambdaArn = input.rotationLambdaArn;
        if (input.rotationRules) secret.rotationRules = input.rotationRules;
      }
      changed();
      return { arn: secret.arn, versionId: version!.versionId };
    },

    toJSON: () => structuredClone(store.state),

    setRotationInvoker(fn) {
      invoker = fn;
    },

    async settled() {
      while (running.size > 0) await Promise.all(running);
    },
  };

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = header(req, 'x-amz-target') ?? '';
    const operation = target.startsWith(TARGET_PREFIX)
      ? target.slice(TARGET_PREFIX.length)
      : target;
    let secretId: string | undefined;
    try {
      if (req.method !== 'POST')
        throw new SecretsManagerFault('UnknownOperationException', 'Only POST / is served.');
      const body = await readJson(req);
      secretId = pickSecretId(body);
      if (!header(req, 'authorization')) {
        throw new SecretsManagerFault(
          'MissingAuthenticationTokenException',
          'Missing Authentication Token',
        );
      }
      const run = Object.hasOwn(operations, operation) ? operations[operation] : undefined;
      if (!run || !target.startsWith(TARGET_PREFIX)) {
        throw new SecretsManagerFault(
          'UnknownOperationException',
          `Unsupported X-Amz-Target: ${target || '(none)'}`,
        );
      }
      if (READS.has(operation) && secretId !== undefined)
        refuseUngranted(operation, secretId, header(req, 'authorization')!);
      const rotationTiming = options.rotationTiming ?? 'sync';
      const output = await run({ store, invoker, changed, rotationTiming, track }, body);
      send(res, 200, output);
      log(operation, 200, secretId);
    } catch (error) {
      const fault =
        error instanceof SecretsManagerFault
          ? error
          : new SecretsManagerFault(
              'InternalServiceError',
              'An internal error occurred in the emulator.',
              500,
            );
      send(res, fault.status, { __type: fault.type, message: fault.message }, fault.type);
      log(operation, fault.status, secretId, fault.type);
    }
  }

  /** AWS's answer to a read the caller's identity policy does not allow. */
  function refuseUngranted(operation: string, secretId: string, authorization: string): void {
    const accessKeyId = /Credential=([^/,\s]+)\//.exec(authorization)?.[1] ?? '';
    const granted = readable.get(accessKeyId);
    const name = store.find(secretId)?.name ?? secretId;
    if (!granted || granted.has(name)) return;
    throw new SecretsManagerFault(
      'AccessDeniedException',
      `User: ${accessKeyId} is not authorized to perform: secretsmanager:${operation} on resource: ${secretId} because no identity-based policy allows the secretsmanager:${operation} action`,
    );
  }

  function log(
    operation: string,
    status: number,
    secretId: string | undefined,
    errorType?: string,
  ): void {
    if (!emulator.onRequest) return;
    const secretName =
      secretId === undefined ? undefined : (store.find(secretId)?.name ?? secretId);
    emulator.onRequest({
      operation: operation || '(none)',
      status,
      ...(secretName !== undefined ? { secretName } : {}),
      ...(errorType !== undefined ? { errorType } : {}),
    });
  }

  return emulator;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES)
      throw new SecretsManagerFault('SerializationException', 'Request body is too large.');
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new SecretsManagerFault('SerializationException', 'The request body is not valid JSON.');
  }
}

/** The secret a request names, for the request log (an id, never a value). */
function pickSecretId(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const { SecretId, Name } = body as { SecretId?: unknown; Name?: unknown };
  if (typeof SecretId === 'string') return SecretId;
  return typeof Name === 'string' ? Name : undefined;
}

function send(res: ServerResponse, status: number, body: unknown, errorType?: string): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': JSON_1_1,
    'content-length': Buffer.byteLength(text),
    'x-amzn-requestid': randomUUID(),
    ...(errorType ? { 'x-amzn-errortype': errorType } : {}),
  });
  res.end(text);
}
