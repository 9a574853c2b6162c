import { afterAll, beforeAll } from 'vitest';
import { createManagementClient, type ManagementClient } from '../../lib/api';
import { staticCredentials } from '../../lib/credentials';
import type { WatchdogNotice } from '../../lib/pipes/watchdog';
import type { Notice } from '../../lib/watch/notice';
import type { Notifier } from '../../lib/watch/notifiers/types';
import { managementAuth } from '../../lib/schemas';
import { startSandbox, type Sandbox } from '../../sandbox/index';

/** The sandbox the watchdog tests share (the service as it stands today), its rate limit out of the way. */
export function startWatchdogSandbox(profile: 'current' | 'spec' = 'current'): Promise<Sandbox> {
  return startSandbox({
    profile,
    port: 0,
    rateLimits: { management: { limit: 100_000, windowMs: 1_000 } },
  });
}

export function clientFor(
  sb: Sandbox,
  rateLimit: { limit: number; windowMs: number } | false = false,
): ManagementClient {
  return createManagementClient({
    baseUrl: sb.info.apiUrl,
    credentials: staticCredentials(
      'sandbox key',
      {
        organizationId: sb.info.organizationId,
        keyId: sb.info.keyId,
        keySecret: sb.info.keySecret,
      },
      managementAuth,
    ),
    rateLimit,
    retry: { maxAttempts: 1 },
    deadlineMs: 5_000,
  });
}

/**
 * The file's sandbox and client: started before its tests, closed after them. Read them inside
 * a test (`const { sb, client } = shared;`): they exist once the tests run.
 */
export function sandboxForFile(): { sb: Sandbox; client: ManagementClient } {
  const shared = {} as { sb: Sandbox; client: ManagementClient };
  beforeAll(async () => {
    shared.sb = await startWatchdogSandbox();
    shared.client = clientFor(shared.sb);
  });
  afterAll(async () => {
    shared.client?.close();
    await shared.sb?.close();
  });
  return shared;
}

/** A notifier that remembers what the watchdog gave it (and can be told to fail). */
export function recordingNotifier(name = 'memory') {
  const sent: WatchdogNotice[] = [];
  let failuresLeft = 0;
  const notifier: Notifier & { sent: WatchdogNotice[]; failNext(n: number): void } = {
    name,
    sent,
    failNext(n) {
      failuresLeft = n;
    },
    send(n: Notice) {
      if (failuresLeft > 0) {
        failuresLeft -= 1;
        return Promise.reject(new Error(`${name} is down`));
      }
      if (n.subject !== 'pipe' && n.subject !== 'service')
        return Promise.reject(new Error(`not a watchdog notice: ${n.subject}`));
      sent.push(n as WatchdogNotice);
      return Promise.resolve();
    },
  };
  return notifier;
}

export const brief = (n: WatchdogNotice) => `${n.kind}:${n.severity}:${n.from}->${n.to}`;

/** The pipe a notice is about ('' for a service's own notice). */
export const pipeOf = (n: WatchdogNotice) => (n.subject === 'pipe' ? n.pipeId : '');
