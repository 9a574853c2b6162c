import type { CredentialProvider } from '../../../lib/credentials/types';
import type { Clock, ManagementClientOptions } from '../../../lib/api';
import type { ManagementKeySecret, ObservabilityTokenSecret } from '../../../lib/schemas';

export const ORG = '0b7d1c52-5a55-4c39-8d61-6f1f3e6a0a01';
export const SERVICE = '4f3c2b1a-0000-4000-8000-00000000aaaa';
export const PIPE = '9e8d7c6b-1111-4111-8111-00000000bbbb';
export const KEY_RECORD = '1a2b3c4d-2222-4222-8222-00000000cccc';

let counter = 0;

/** A management key credential whose secret changes on every refresh(). */
export function managementCredentials(label = `test-key-${++counter}`) {
  let version = 1;
  const make = (): ManagementKeySecret => ({
    organizationId: ORG,
    keyId: `KEYID${counter}X${version}`,
    keySecret: `s3cr3t-key-secret-${counter}-v${version}-${Math.random().toString(36).slice(2)}`,
    keyRecordId: KEY_RECORD,
    roles: ['admin'],
    expireAt: null,
  });
  let current = make();
  const provider: CredentialProvider<ManagementKeySecret> & {
    refreshes: number;
    current(): ManagementKeySecret;
  } = {
    label,
    refreshes: 0,
    get: () => Promise.resolve(current),
    refresh: () => {
      provider.refreshes += 1;
      version += 1;
      current = make();
      return Promise.resolve(current);
    },
    current: () => current,
  };
  return provider;
}

export function observabilityCredentials(label = `test-token-${++counter}`) {
  let current: ObservabilityTokenSecret = {
    token: `tok-${counter}-${Math.random().toString(36).slice(2)}`,
  };
  const provider: CredentialProvider<ObservabilityTokenSecret> & { refreshes: number } = {
    label,
    refreshes: 0,
    get: () => Promise.resolve(current),
    refresh: () => {
      provider.refreshes += 1;
      current = { token: `tok-refreshed-${Math.random().toString(36).slice(2)}` };
      return Promise.resolve(current);
    },
  };
  return provider;
}

/** Virtual time: sleep() advances the clock instantly and records the wait. */
export function fakeClock(start = 1_000): Clock & { sleeps: number[]; advance(ms: number): void } {
  let now = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    advance: (ms) => {
      now += ms;
    },
    sleep: (ms, signal) => {
      signal?.throwIfAborted();
      sleeps.push(ms);
      now += Math.max(0, ms);
      return Promise.resolve();
    },
  };
}

export const pipeRecord = {
  id: PIPE,
  serviceId: SERVICE,
  name: 'orders-stream',
  state: 'Running',
  settings: { streaming_max_insert_wait_ms: 1000 },
  createdAt: '2025-01-01T00:00:00Z',
  updatedAt: '2025-01-02T00:00:00Z',
};

/** A management client's options against a canned server: a fresh key, virtual time, no jitter, no client-side limit. */
export function cannedClientOptions(baseUrl: string): ManagementClientOptions {
  return {
    baseUrl,
    credentials: managementCredentials(),
    rateLimit: false,
    clock: fakeClock(),
    random: () => 0,
  };
}

/** A create-alert body on a tile (webhook channel). */
export const alertBody = {
  name: 'lag',
  source: 'tile',
  dashboardId: 'd1',
  tileId: 't1',
  threshold: 5,
  interval: '5m',
  thresholdType: 'above',
  channel: { type: 'webhook', webhookId: 'w1' },
} as const;
