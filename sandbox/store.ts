import {
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { MetricsState } from './metrics/state';
import type { SandboxProfile } from './profiles/names';
import type { Alert, Dashboard, IpAccessEntry, KeyRole, KeyState, Pipe } from '../lib/schemas';

/** A stored API key: only hashes of the key ID and secret, never the values. */
export interface KeyRow {
  id: string;
  name: string;
  roles: KeyRole[];
  keySuffix: string;
  keyIdHash: string;
  keySecretHash: string;
  createdAt: string;
  expireAt: string | null;
  usedAt?: string;
  ipAccessList: IpAccessEntry[];
  state: KeyState;
  /** Current profile: the role assignment that decides permissions (`roles` is deprecated there). */
  assignedRoles?: AssignedRole[];
}

/** One entry of the organization's audit trail (API-FACTS, "Audit trail"). */
export interface ActivityRow {
  id: string;
  createdAt: string;
  organizationId: string;
  type: string;
  keyUpdateType?: string;
  targetKeyId?: string;
  actorType: string;
  actorId: string;
  actorDetails: string;
  actorIpAddress: string;
  userAgent: string;
}

export interface AssignedRole {
  roleId: string;
  roleName: string;
  roleType: 'system' | 'custom';
}

export interface ServiceRow {
  id: string;
  name: string;
  /** The observability team that owns the service's dashboards and alerts. */
  team: string;
  /** An idle service answers 424 on pipe calls (absent = running). */
  state?: 'running' | 'idle';
}

export interface WebhookRow {
  id: string;
  serviceId: string;
  name: string;
  url: string;
  /** slack | incidentio | generic (current profile's lists show it). */
  service?: string;
  createdAt?: string;
  updatedAt?: string;
  /** Current profile: shown when set. */
  description?: string;
  body?: string;
  /** Current profile: write-only, stored and never shown. */
  headers?: Record<string, string>;
  queryParams?: Record<string, string>;
}

export interface SourceRow {
  id: string;
  serviceId: string;
  name: string;
  kind: string;
  /** Current profile: the connection the source reads through and its table. */
  connection?: string;
  from?: { databaseName: string; tableName: string | null };
  /** Current profile: the fields of its kind (expressions, metricTables, ...), shown as stored. */
  details?: Record<string, unknown>;
}

/** Current profile: a saved search (older state files hold only id, serviceId and name). */
export interface SavedSearchRow {
  id: string;
  serviceId: string;
  name: string;
  sourceId?: string;
  select?: string;
  where?: string;
  whereLanguage?: string;
  orderBy?: string;
  tags?: string[];
  filters?: { type?: string; condition: string }[];
  createdAt?: string;
  updatedAt?: string;
}

/** A bearer token of the observability API, stored as a hash and bound to one service. */
export interface TokenRow {
  label: string;
  serviceId: string;
  tokenHash: string;
  createdAt: string;
}

export type DashboardRow = Dashboard & { serviceId: string; createdAt: string; updatedAt: string };
export type AlertRow = Alert & { serviceId: string };

/** The credentials handed out by the seed: kept so a restart from a state file still prints working ones. */
interface SeedInfo {
  serviceId: string;
  keyId: string;
  keySecret: string;
  keyRecordId: string;
  observabilityToken: string;
  keySecretId: string;
  observabilityTokenSecretId: string;
  pipeIds: string[];
  webhookId: string;
  /** Current profile: a service that is idle at start (its pipe calls answer 424). */
  idleServiceId?: string;
  savedSearchId?: string;
}

export interface SandboxState {
  version: 1;
  /** Absent in state files written before profiles existed (they behave as `spec`). */
  profile?: SandboxProfile;
  clockOffsetMs: number;
  organizationId: string;
  services: ServiceRow[];
  keys: KeyRow[];
  pipes: Pipe[];
  dashboards: DashboardRow[];
  alerts: AlertRow[];
  webhooks: WebhookRow[];
  sources: SourceRow[];
  /** Current profile only (absent in older state files). */
  savedSearches?: SavedSearchRow[];
  /** Current profile: the organization's roles and what each permits. */
  roleCatalog?: (AssignedRole & { grants: KeyRole[] })[];
  tokens: TokenRow[];
  /** The audit trail, oldest first (absent in older state files). */
  activities?: ActivityRow[];
  /** The metrics endpoint's pipe flows (absent until a flow or pipe state first changes). */
  metrics?: MetricsState;
  seed: SeedInfo;
  /** The Secrets Manager emulator's own state (opaque here). */
  secretsManager?: unknown;
}

interface StoreOptions {
  stateFile?: string;
  /** The Secrets Manager emulator's state, captured at every write. */
  secretsManagerState?: () => unknown;
}

/**
 * One shared state for every surface. Writers call `changed()`; the server calls `flush()` after
 * each request, which writes the state file atomically (temp file + fsync + rename).
 */
export class Store {
  private dirty = false;
  constructor(
    public state: SandboxState,
    private readonly options: StoreOptions = {},
  ) {}

  static load(stateFile: string): SandboxState | undefined {
    if (!existsSync(stateFile)) return undefined;
    const parsed = JSON.parse(readFileSync(stateFile, 'utf8')) as Partial<SandboxState>;
    if (
      parsed.version !== 1 ||
      !parsed.organizationId ||
      !Array.isArray(parsed.keys) ||
      !parsed.seed
    ) {
      throw new Error(`sandbox state file ${stateFile} is not a version 1 sandbox state`);
    }
    return parsed as SandboxState;
  }

  changed(): void {
    this.dirty = true;
  }

  flush(): void {
    if (!this.dirty) return;
    this.dirty = false;
    const file = this.options.stateFile;
    if (!file) return;
    const snapshot: SandboxState = {
      ...this.state,
      secretsManager: this.options.secretsManagerState?.(),
    };
    writeAtomically(file, JSON.stringify(snapshot, null, 2) + '\n');
  }

  service(serviceId: string): ServiceRow | undefined {
    return this.state.services.find((s) => s.id === serviceId);
  }

  key(recordId: string): KeyRow | undefined {
    return this.state.keys.find((k) => k.id === recordId);
  }

  pipe(pipeId: string): Pipe | undefined {
    return this.state.pipes.find((p) => p.id === pipeId);
  }
}

function writeAtomically(file: string, text: string): void {
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.${Date.now()}.tmp`);
  const fd = openSync(temp, 'w', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, file);
}
