/**
 * A loopback stand-in for PagerDuty's Events API v2 enqueue endpoint, answering as PagerDuty's
 * published OpenAPI document and its observed answers describe: 202 `{ status: "success",
 * message: "Event processed", dedup_key }` for a valid event; 400 `{ status: "invalid event",
 * message: "Event object is invalid", errors: [...] }` for an invalid one (a routing key that is
 * not 32 alphanumerics, an unknown key, a missing summary/source/severity on a trigger, a
 * dedup_key over 255 or missing on a resolve, a summary over 1024); 429 and 5xx when scripted.
 * It keeps the incidents it opened and resolved, by dedup_key.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PagerDutyEvent {
  routing_key: string;
  event_action: 'trigger' | 'acknowledge' | 'resolve';
  dedup_key?: string;
  client?: string;
  payload?: {
    summary: string;
    source: string;
    severity: 'critical' | 'error' | 'warning' | 'info';
    timestamp?: string;
    component?: string;
    group?: string;
    class?: string;
    custom_details?: Record<string, unknown>;
  };
  links?: { href: string; text?: string }[];
}

const SEVERITIES = ['critical', 'error', 'warning', 'info'];
const ACTIONS = ['trigger', 'acknowledge', 'resolve'];

/** What is wrong with an event, PagerDuty's way (empty: valid). */
function problems(body: unknown, keys: ReadonlySet<string>): string[] {
  if (typeof body !== 'object' || body === null) return ['Event object is not an object'];
  const e = body as Partial<PagerDutyEvent>;
  const out: string[] = [];
  const key = e.routing_key ?? '';
  if (key.length !== 32) out.push("Length of 'routing_key' is incorrect (should be 32 characters)");
  if (!/^[A-Za-z0-9]*$/.test(key))
    out.push("'routing_key' cannot contain non-alphanumeric characters.");
  if (out.length === 0 && !keys.has(key)) out.push('Invalid routing key');
  if (!ACTIONS.includes(e.event_action ?? '')) out.push("'event_action' is invalid");
  if (e.dedup_key !== undefined && (typeof e.dedup_key !== 'string' || e.dedup_key.length > 255))
    out.push("'dedup_key' must be a string of at most 255 characters");
  if (e.event_action !== 'trigger' && !e.dedup_key) out.push("'dedup_key' is missing or blank");
  if (e.event_action === 'trigger') {
    const p = e.payload;
    if (!p?.summary) out.push("'payload.summary' is missing or blank");
    else if (p.summary.length > 1024) out.push("'payload.summary' is longer than 1024 characters");
    if (!p?.source) out.push("'payload.source' is missing or blank");
    if (!SEVERITIES.includes(p?.severity ?? '')) out.push("'payload.severity' is invalid");
    if (p?.timestamp !== undefined && Number.isNaN(Date.parse(p.timestamp)))
      out.push("'payload.timestamp' is invalid");
    for (const link of e.links ?? [])
      if (!/^https?:\/\//.test(link.href)) out.push("'links.href' is invalid");
  }
  return out;
}

/**
 * @param keys the routing keys of the integrations that exist
 * @param statuses answers to give before judging the event (429, 500; then as PagerDuty would)
 */
export async function startPagerDuty(keys: string[], statuses: number[] = []) {
  const known = new Set(keys);
  const script = [...statuses];
  const accepted: PagerDutyEvent[] = [];
  const refused: { status: number; errors: string[] }[] = [];
  let requests = 0;
  /** dedup_key -> open or resolved. */
  const incidents = new Map<string, 'open' | 'resolved'>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests += 1;
      const answer = (status: number, body: object) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      const scripted = script.shift();
      if (scripted !== undefined) {
        refused.push({ status: scripted, errors: [] });
        return answer(scripted, { status: 'throttled', message: 'try again later' });
      }
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        refused.push({ status: 400, errors: ['JSON parse error'] });
        return answer(400, {
          status: 'Unrecognized object',
          message: 'Event object format is unrecognized',
          errors: ['JSON parse error'],
        });
      }
      const errors = problems(body, known);
      if (errors.length > 0) {
        refused.push({ status: 400, errors });
        return answer(400, { status: 'invalid event', message: 'Event object is invalid', errors });
      }
      const event = body as PagerDutyEvent;
      accepted.push(event);
      const dedupKey = event.dedup_key ?? `generated-${accepted.length}`;
      if (event.event_action === 'trigger') incidents.set(dedupKey, 'open');
      // A resolve for a key with no open alert is accepted and does nothing.
      if (event.event_action === 'resolve' && incidents.has(dedupKey))
        incidents.set(dedupKey, 'resolved');
      answer(202, { status: 'success', message: 'Event processed', dedup_key: dedupKey });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v2/enqueue`,
    accepted,
    refused,
    incidents,
    requests: () => requests,
    /** A new integration key exists (a key rotated in PagerDuty). */
    addKey: (key: string) => known.add(key),
    removeKey: (key: string) => known.delete(key),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
