import { createManagementClient, type ManagementClient } from '../../lib/api';
import { staticCredentials } from '../../lib/credentials';
import type { Notifier } from '../../lib/notify/types';
import type { PipeNotification } from '../../lib/pipes/types';
import { managementAuth } from '../../lib/schemas';
import type { Sandbox } from '../../sandbox/index';

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

/** A notifier that remembers what it was given (and can be told to fail). */
export function recordingNotifier(name = 'memory') {
  const sent: PipeNotification[] = [];
  let failuresLeft = 0;
  const notifier: Notifier & { sent: PipeNotification[]; failNext(n: number): void } = {
    name,
    sent,
    failNext(n) {
      failuresLeft = n;
    },
    send(n) {
      if (failuresLeft > 0) {
        failuresLeft -= 1;
        return Promise.reject(new Error(`${name} is down`));
      }
      sent.push(n);
      return Promise.resolve();
    },
  };
  return notifier;
}

export const brief = (n: PipeNotification) => `${n.kind}:${n.severity}:${n.from}->${n.to}`;
