/**
 * Which events provision-alerts takes, by who sent them. The bus accepts PutEvents from any
 * principal allowed to put there, and a forged `Dashboard Synced` without alerts deletes a
 * dashboard's alerts: so besides the IAM conditions (each of this stack's roles may put only its
 * own source and detail-types) and the rules' source patterns, the consumer checks the envelope.
 *
 * - `Dashboard Synced` only from this stack's dashboard sync: source `cloudops`, which only the
 *   sync's role may put with that detail-type.
 * - `Alert Provision Requested` only from the sources the deployer lists
 *   (CLOUDOPS_ALERT_REQUEST_SOURCES, cdk `cloudops:alertRequestSources`); none listed, none taken.
 *
 * Other detail-types are not judged here: the event parser refuses them as unknown kinds.
 */
import * as z from 'zod/mini';
import { envList, readEnv } from '../config';
import { silentLogger, type Logger } from '../log';
import {
  ALERT_PROVISION_REQUESTED,
  DASHBOARD_SYNC_CONTINUED,
  DASHBOARD_SYNCED,
  DASHBOARDS_DRIFTED,
  EVENT_SOURCE,
  PIPE_STATE_CHANGED,
} from './names';

/**
 * What each of this stack's emitters puts on the bus, all under EVENT_SOURCE: its IAM grant
 * allows exactly these detail-types (cdk), and nothing else is ever sent as `cloudops`.
 */
export const EMITTED_DETAIL_TYPES = {
  /** The dashboard sync (and its own continuation); `Dashboards Drifted` in report mode only. */
  sync: [DASHBOARD_SYNCED, DASHBOARD_SYNC_CONTINUED],
  syncReport: [DASHBOARDS_DRIFTED],
  /** The watchdog's scheduled run and its consumer. */
  watchdog: [PIPE_STATE_CHANGED],
} as const;

/** An event source a requester may use: EventBridge's characters, never an `aws.` source. */
export const requestSource = z.lazy(() =>
  z
    .string()
    .check(
      z.regex(
        /^(?!aws\.)[A-Za-z0-9._/-]{1,256}$/,
        'expected event sources such as com.example.ci (letters, digits, . _ / -; not aws.*)',
      ),
    ),
);

export const eventTrustEnv = z.object({
  /** Sources whose `Alert Provision Requested` events are provisioned (comma separated). */
  CLOUDOPS_ALERT_REQUEST_SOURCES: z.optional(z.pipe(envList, z.array(requestSource))),
});

export interface EventTrust {
  /** Sources allowed to request alerts; empty: requests are refused. */
  readonly requestSources: readonly string[];
}

export function readEventTrust(env?: Record<string, string | undefined>): EventTrust {
  const parsed = readEnv(eventTrustEnv, env);
  return { requestSources: parsed.CLOUDOPS_ALERT_REQUEST_SOURCES ?? [] };
}

/** Why an event is refused, or undefined when its sender may send it. */
export function eventRefusal(
  trust: EventTrust,
  event: { source: unknown; 'detail-type': unknown },
): string | undefined {
  const source = String(event.source);
  if (event['detail-type'] === DASHBOARD_SYNCED && source !== EVENT_SOURCE) {
    return `${DASHBOARD_SYNCED} is taken only from source ${EVENT_SOURCE} (this stack's dashboard sync), not ${source}`;
  }
  if (
    event['detail-type'] === ALERT_PROVISION_REQUESTED &&
    !trust.requestSources.includes(source)
  ) {
    return trust.requestSources.length === 0
      ? `${ALERT_PROVISION_REQUESTED} from ${source}: no request source is configured (CLOUDOPS_ALERT_REQUEST_SOURCES)`
      : `${ALERT_PROVISION_REQUESTED} is taken only from ${trust.requestSources.join(', ')}, not ${source}`;
  }
  return undefined;
}

/**
 * The queue records whose event may be provisioned. A refused one is logged (an error: someone
 * put an event they should not have) and dropped: it is no failure to retry, and redelivering
 * it would only refuse it again. A body that is not an event passes on for the parser to report.
 */
export function trustedRecords<R extends { messageId: string; body: string }>(
  records: readonly R[],
  trust: EventTrust,
  logger: Logger = silentLogger,
): R[] {
  return records.filter((record) => {
    const envelope = envelopeOf(record.body);
    if (!envelope) return true;
    const refusal = eventRefusal(trust, envelope);
    if (refusal === undefined) return true;
    logger.error('alert event refused', {
      messageId: record.messageId,
      source: String(envelope.source),
      detailType: String(envelope['detail-type']),
      reason: refusal,
    });
    return false;
  });
}

function envelopeOf(body: string): { source: unknown; 'detail-type': unknown } | undefined {
  try {
    const value = JSON.parse(body) as unknown;
    if (value && typeof value === 'object' && 'source' in value && 'detail-type' in value)
      return value;
  } catch {
    // Not JSON: the parser names it.
  }
  return undefined;
}
