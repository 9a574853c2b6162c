/**
 * The metrics endpoint (current profile) and its admin levers: a pipe's flow, and a service whose
 * scrape fails in part. The endpoint sits behind the management surface's auth, rate limit and
 * JSON error envelopes; unlike pipe calls it answers for an idle service, and never wakes it.
 */
import * as z from 'zod';
import type { Pipe } from '../../lib/schemas';
import { badRequest, conflict, notFound, validateBody } from '../errors';
import { TextResult, type ManagementHandler, type ManagementRequest } from '../management/context';
import { route, type Route } from '../router';
import type { ServiceRow, Store } from '../store';
import { metricsText } from './exposition';
import { currentRates, metricsState, setFlowRates, STEADY_FLOW, totalsAt } from './flow';

const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8';

/** `filtered_metrics` takes true or false; what the service does with another value is unknown. */
function filteredOf(query: URLSearchParams): boolean {
  const value = query.get('filtered_metrics');
  if (value === null || value === 'false') return false;
  if (value === 'true') return true;
  throw badRequest(`invalid filtered_metrics "${value}": expected true or false`);
}

const metricsOf =
  (services: (req: ManagementRequest) => ServiceRow[]): ManagementHandler['run'] =>
  (req) =>
    new TextResult(
      metricsText(req.store.state, services(req), {
        filtered: filteredOf(req.query),
        now: req.now,
      }),
      PROMETHEUS_TEXT,
    );

export const metricsRoutes: Route<ManagementHandler>[] = [
  route('GET', '/v1/organizations/:organizationId/services/:serviceId/prometheus', {
    admin: false,
    run: metricsOf((req) => [req.store.service(req.params.serviceId)!]),
  }),
  route('GET', '/v1/organizations/:organizationId/prometheus', {
    admin: false,
    run: metricsOf((req) => req.store.state.services),
  }),
];

interface MetricsAdminDeps {
  store: Store;
  clock: { now(): number };
}
type MetricsAdminHandler = (
  deps: MetricsAdminDeps,
  params: Record<string, string>,
  body: unknown,
) => unknown;

const rate = z.number().nonnegative();
/** Omitted rates keep the steady flow's value: `{ sentPerMinute: 0 }` stalls a pipe. */
const flowBody = z.strictObject({
  fetchedPerMinute: rate.default(STEADY_FLOW.fetchedPerMinute),
  sentPerMinute: rate.default(STEADY_FLOW.sentPerMinute),
  errorsPerMinute: rate.default(STEADY_FLOW.errorsPerMinute),
});
const scrapeBody = z.strictObject({ scrape: z.enum(['full', 'partial']) });

/** A pipe by its id, or by its name when exactly one pipe has it. */
function pipeByRef(store: Store, ref: string): Pipe {
  const byId = store.pipe(ref);
  if (byId) return byId;
  const named = store.state.pipes.filter((p) => p.name === ref);
  if (named.length > 1) throw conflict(`${named.length} pipes are named "${ref}": use an id`);
  if (named.length === 0) throw notFound(`pipe ${ref} not found`);
  return named[0];
}

/** What the flow routes answer: the pipe, the rates it moves at now, and its totals so far. */
function flowView(deps: MetricsAdminDeps, pipe: Pipe) {
  const now = deps.clock.now();
  const totals = totalsAt(deps.store.state, pipe, now);
  return {
    pipeId: pipe.id,
    name: pipe.name,
    state: pipe.state,
    rates: currentRates(deps.store.state, pipe),
    totals: {
      fetched: Math.floor(totals.fetched),
      sent: Math.floor(totals.sent),
      errors: Math.floor(totals.errors),
    },
  };
}

const setFlow =
  (read: (body: unknown) => z.output<typeof flowBody> | undefined): MetricsAdminHandler =>
  (deps, params, body) => {
    const pipe = pipeByRef(deps.store, params.pipeRef);
    setFlowRates(deps.store.state, pipe, read(body), deps.clock.now());
    deps.store.changed();
    return flowView(deps, pipe);
  };

export const metricsAdminRoutes: Route<MetricsAdminHandler>[] = [
  route('GET', '/_sandbox/pipes/:pipeRef/flow', (deps, params) =>
    flowView(deps, pipeByRef(deps.store, params.pipeRef)),
  ),
  route(
    'PUT',
    '/_sandbox/pipes/:pipeRef/flow',
    setFlow((body) => validateBody(flowBody, body ?? {})),
  ),
  route(
    'DELETE',
    '/_sandbox/pipes/:pipeRef/flow',
    setFlow(() => undefined),
  ),
  route('PUT', '/_sandbox/services/:serviceId/scrape', (deps, params, body) => {
    const { scrape } = validateBody(scrapeBody, body);
    if (!deps.store.service(params.serviceId))
      throw notFound(`service ${params.serviceId} not found`);
    const metrics = metricsState(deps.store.state);
    const others = metrics.partialServices.filter((id) => id !== params.serviceId);
    metrics.partialServices = scrape === 'partial' ? [...others, params.serviceId] : others;
    deps.store.changed();
    return { serviceId: params.serviceId, scrape };
  }),
];
