import type { Server } from 'node:http';
import type { Logger } from '../lib/log';
import { silentLogger } from '../lib/log';
import { registerSecret } from '../lib/redact';
import { createAdmin } from './admin';
import { Faults } from './faults';
import type { FaultController, FaultSpec } from './faults';
import { createManagementSurface } from './management/surface';
import { settleFlow } from './metrics/flow';
import { createObservabilitySurface } from './observability/surface';
import { RateLimiter } from './rate-limit';
import type { RateLimitConfig } from './rate-limit';
import { RequestLog } from './request-log';
import type { RequestLogEntry } from './request-log';
import { createSecretsManagerEmulator } from './secrets-manager';
import type {
  RotationInvoker,
  RotationTiming,
  SecretsManagerEmulator,
  SecretsManagerState,
} from './secrets-manager';
import { seedState } from './seed';
import {
  createManagementListener,
  createObservabilityListener,
  createSecretsManagerListener,
  httpServer,
  listen,
} from './server';
import { Store } from './store';
import type { SandboxState } from './store';
import { DEFAULT_PROFILE, isSandboxProfile } from './profiles/names';
import { profileFor } from './profiles/registry';
import type { SandboxProfile } from './profiles/names';

export type { FaultController, FaultKind, FaultSpec } from './faults';
export { FAULT_KINDS, parseFaultSpec } from './faults';
export type { SandboxProfile } from './profiles/names';
export { SANDBOX_PROFILES, DEFAULT_PROFILE, isSandboxProfile } from './profiles/names';
export type { RequestLogEntry, Surface } from './request-log';
export type { RateLimitConfig } from './rate-limit';
export { Store } from './store';
export type { SandboxState, KeyRow, TokenRow, WebhookRow, DashboardRow, AlertRow } from './store';

export interface SandboxOptions {
  /**
   * `current` models today's live service, `spec` the spec's snapshot. Default: the state file's
   * profile when one is loaded, else `current`. A loaded state of the other profile is refused.
   */
  profile?: SandboxProfile;
  /** Default 127.0.0.1. */
  host?: string;
  /** 0 (default) = free ports; N = management N, observability N+1, Secrets Manager N+2. */
  port?: number;
  /** Load state from this file when it exists (no reseed), else seed and write it; written after every change. */
  stateFile?: string;
  /** Object or compact string ("seed=7,rate=0.2,kinds=500+html504,route=PUT /api/v2/.*"). */
  faults?: FaultSpec | string;
  rateLimits?: { management?: RateLimitConfig; observability?: RateLimitConfig };
  /** Base clock (default Date.now); the sandbox clock is this plus what `clock.advance` added. */
  now?: () => number;
  /** Called by the Secrets Manager endpoint for RotateSecret. */
  invokeRotation?: RotationInvoker;
  /**
   * When RotateSecret answers: `sync` (default) after the four steps ran; `async` at once, the
   * steps running afterwards, as AWS does (a caller must follow the version's stages).
   */
  rotationTiming?: RotationTiming;
  logger?: Logger;
}

/** Everything a client needs; the CLI prints it as one JSON line. */
export interface SandboxInfo {
  profile: SandboxProfile;
  apiUrl: string;
  observabilityUrl: string;
  secretsManagerUrl: string;
  organizationId: string;
  serviceId: string;
  serviceIds: string[];
  keyId: string;
  keySecret: string;
  keyRecordId: string;
  observabilityToken: string;
  keySecretId: string;
  observabilityTokenSecretId: string;
  pipeIds: string[];
  webhookId: string;
  /** The first service's first source (the `sourceId` a current-profile series needs). */
  sourceId: string;
  /** Current profile: a service that is idle (pipe calls answer 424); never `serviceId`. */
  idleServiceId?: string;
  /** Current profile: a saved search a `saved_search` alert can watch. */
  savedSearchId?: string;
  /** Current profile: role name -> roleId, for `assignedRoleIds`. */
  roleIds?: Record<string, string>;
}

export interface Sandbox {
  info: SandboxInfo;
  requestLog: { entries(): RequestLogEntry[]; clear(): void };
  faults: FaultController;
  clock: { now(): number; advance(ms: number): void };
  /** Sets any state string on a pipe and bumps its updatedAt (pipe-watchdog tests). */
  setPipeState(pipeId: string, state: string): void;
  /** Idles or wakes a service: an idle one answers 424 on pipe calls. */
  setServiceState(serviceId: string, state: 'running' | 'idle'): void;
  /** The shared state (read it; after writing call `store.changed()` and `store.flush()`). */
  store: Store;
  /** The Secrets Manager endpoint's read grants per access key (IAM, as far as reads go). */
  secretsManager: Pick<SecretsManagerEmulator, 'grantReads'>;
  close(): Promise<void>;
}

export const DEFAULT_RATE_LIMITS = {
  management: { limit: 10, windowMs: 10_000 },
  observability: { limit: 100, windowMs: 60_000 },
} as const;

const KEY_SECRET_NAME = 'cloudops/sandbox/management-key';
const TOKEN_SECRET_NAME = 'cloudops/sandbox/observability-token';
const ROTATION_LAMBDA_ARN = 'arn:aws:lambda:us-east-1:000000000000:function:cloudops-rotate-key';

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const host = options.host ?? '127.0.0.1';
  const baseNow = options.now ?? Date.now;
  const logger = options.logger ?? silentLogger;
  const loaded = options.stateFile ? Store.load(options.stateFile) : undefined;
  const profile = resolveProfile(options, loaded);
  const behaviour = profileFor(profile);
  let state: SandboxState;
  if (loaded) state = loaded;
  else {
    state = seedState(baseNow()).state;
    behaviour.seed(state, baseNow());
  }
  state.profile = profile;

  // The emulator needs the clock (which reads the store) and the store saves the emulator's state.
  const secretsManagerState = { read: (): unknown => undefined };
  const store = new Store(state, {
    stateFile: options.stateFile,
    secretsManagerState: () => secretsManagerState.read(),
  });
  const clock = {
    now: () => baseNow() + store.state.clockOffsetMs,
    advance(ms: number) {
      if (!(ms >= 0))
        throw new Error('clock.advance: ms must be >= 0 (the sandbox clock only moves forward)');
      store.state.clockOffsetMs += ms;
      store.changed();
      store.flush();
    },
  };
  const emulator = createSecretsManagerEmulator({
    now: clock.now,
    onChange: () => {
      store.changed();
      store.flush();
    },
    state: loaded?.secretsManager as SecretsManagerState | undefined,
    invokeRotation: options.invokeRotation,
    rotationTiming: options.rotationTiming,
  });
  secretsManagerState.read = () => emulator.toJSON();

  const seed = store.state.seed;
  if (!loaded) {
    seed.keySecretId = emulator.createSecret({
      name: KEY_SECRET_NAME,
      secretString: JSON.stringify({
        organizationId: store.state.organizationId,
        keyId: seed.keyId,
        keySecret: seed.keySecret,
        keyRecordId: seed.keyRecordId,
        roles: ['admin'],
      }),
      rotationEnabled: true,
      rotationLambdaArn: ROTATION_LAMBDA_ARN,
    }).arn;
    seed.observabilityTokenSecretId = emulator.createSecret({
      name: TOKEN_SECRET_NAME,
      secretString: JSON.stringify({ token: seed.observabilityToken }),
    }).arn;
  }
  // Seed secrets must never reach a log line, even though the process handles them.
  registerSecret(seed.keySecret);
  registerSecret(seed.observabilityToken);
  for (const pipe of store.state.pipes)
    registerSecret(pipe.source?.objectStorage?.connectionString);
  store.changed();
  store.flush();

  const requestLog = new RequestLog(clock.now);
  const faults = new Faults(options.faults);
  const setPipeState = (pipeId: string, pipeState: string) => {
    const pipe = store.pipe(pipeId);
    if (!pipe) throw new Error(`setPipeState: pipe ${pipeId} not found`);
    settleFlow(store.state, pipe, clock.now());
    pipe.state = pipeState;
    pipe.updatedAt = new Date(clock.now()).toISOString();
    store.changed();
    store.flush();
  };
  const setServiceState = (serviceId: string, serviceState: 'running' | 'idle') => {
    const service = store.service(serviceId);
    if (!service) throw new Error(`setServiceState: service ${serviceId} not found`);
    service.state = serviceState;
    store.changed();
    store.flush();
  };
  const admin = createAdmin(
    { store, requestLog, faults, clock, setPipeState, setServiceState },
    () => emulator.toJSON(),
  );
  const deps = { store, faults, requestLog, logger, admin };
  const management = createManagementSurface({
    store,
    now: clock.now,
    logger,
    profile: behaviour,
    limiter: new RateLimiter(
      options.rateLimits?.management ?? DEFAULT_RATE_LIMITS.management,
      clock.now,
    ),
  });
  const observability = createObservabilitySurface({
    store,
    now: clock.now,
    logger,
    profile: behaviour,
    limiter: new RateLimiter(
      options.rateLimits?.observability ?? DEFAULT_RATE_LIMITS.observability,
      clock.now,
    ),
  });

  const servers: Server[] = [
    httpServer(createManagementListener(deps, management), logger),
    httpServer(createObservabilityListener(deps, observability), logger),
    httpServer(createSecretsManagerListener(deps, emulator), logger),
  ];
  const base = options.port ?? 0;
  const ports: number[] = [];
  try {
    for (const [index, server] of servers.entries())
      ports.push(await listen(server, host, base === 0 ? 0 : base + index));
  } catch (error) {
    await closeAll(servers);
    throw error;
  }
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const [apiPort, observabilityPort, secretsPort] = ports as [number, number, number];

  const info: SandboxInfo = {
    profile,
    apiUrl: `http://${urlHost}:${apiPort}`,
    observabilityUrl: `http://${urlHost}:${observabilityPort}`,
    secretsManagerUrl: `http://${urlHost}:${secretsPort}`,
    organizationId: store.state.organizationId,
    serviceId: seed.serviceId,
    serviceIds: store.state.services.map((s) => s.id),
    keyId: seed.keyId,
    keySecret: seed.keySecret,
    keyRecordId: seed.keyRecordId,
    observabilityToken: seed.observabilityToken,
    keySecretId: seed.keySecretId,
    observabilityTokenSecretId: seed.observabilityTokenSecretId,
    pipeIds: [...seed.pipeIds],
    webhookId: seed.webhookId,
    sourceId: store.state.sources.find((s) => s.serviceId === seed.serviceId)?.id ?? '',
    ...(seed.idleServiceId ? { idleServiceId: seed.idleServiceId } : {}),
    ...(seed.savedSearchId ? { savedSearchId: seed.savedSearchId } : {}),
    ...(store.state.roleCatalog
      ? { roleIds: Object.fromEntries(store.state.roleCatalog.map((r) => [r.roleName, r.roleId])) }
      : {}),
  };
  logger.info('sandbox started', {
    apiUrl: info.apiUrl,
    observabilityUrl: info.observabilityUrl,
    secretsManagerUrl: info.secretsManagerUrl,
  });

  let closed: Promise<void> | undefined;
  return {
    info,
    requestLog,
    faults,
    clock,
    setPipeState,
    setServiceState,
    store,
    secretsManager: { grantReads: (key, names) => emulator.grantReads(key, names) },
    close() {
      // A rotation still running in the background finishes against the live endpoints first.
      closed ??= emulator
        .settled()
        .then(() => closeAll(servers))
        .finally(() => store.flush());
      return closed;
    },
  };
}

function resolveProfile(options: SandboxOptions, loaded: SandboxState | undefined): SandboxProfile {
  if (options.profile !== undefined && !isSandboxProfile(options.profile))
    throw new Error(`sandbox profile must be current or spec, got "${String(options.profile)}"`);
  // State files from before profiles were made by the spec-shaped sandbox.
  const stored = loaded ? (loaded.profile ?? 'spec') : undefined;
  if (options.profile && stored && options.profile !== stored)
    throw new Error(
      `sandbox state file ${options.stateFile} holds a ${stored} profile sandbox, not ${options.profile}`,
    );
  return options.profile ?? stored ?? DEFAULT_PROFILE;
}

async function closeAll(servers: Server[]): Promise<void> {
  await Promise.all(
    servers.map(
      (server) =>
        new Promise<void>((resolve) => {
          if (!server.listening) return resolve();
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    ),
  );
}
