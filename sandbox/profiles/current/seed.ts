/** What the current service has beyond the shared seed (API-FACTS, "as it stands today"). */
import { UNIT_MS } from '../../../lib/duration';
import type { Pipe } from '../../../lib/schemas';
import { objectId, uuidV4 } from '../../ids';
import type { DashboardRow, SandboxState } from '../../store';
import { replaceAlertRows, type CurrentAlertRow } from './rows';
import { tileSchema } from './schemas';
import { storedTile } from './tiles';

function seedRoles(state: SandboxState): void {
  state.roleCatalog = [
    { roleId: uuidV4(), roleName: 'Admin', roleType: 'system', grants: ['admin'] },
    { roleId: uuidV4(), roleName: 'Developer', roleType: 'system', grants: ['developer'] },
    {
      roleId: uuidV4(),
      roleName: 'Query endpoints',
      roleType: 'system',
      grants: ['query_endpoints'],
    },
    { roleId: uuidV4(), roleName: 'Pipe operators', roleType: 'custom', grants: ['developer'] },
  ];
  for (const key of state.keys) {
    key.assignedRoles = state.roleCatalog
      .filter((r) => r.roleType === 'system' && r.grants.some((g) => key.roles.includes(g)))
      .map(({ roleId, roleName, roleType }) => ({ roleId, roleName, roleType }));
  }
}

/** The fields each seeded kind requires (a trace source's defaultTableSelectExpression included). */
const SOURCE_DETAILS: Record<string, Record<string, unknown>> = {
  log: {
    timestampValueExpression: 'TimestampTime',
    defaultTableSelectExpression: 'Timestamp, ServiceName, SeverityText, Body',
    serviceNameExpression: 'ServiceName',
    severityTextExpression: 'SeverityText',
    bodyExpression: 'Body',
  },
  metric: {
    timestampValueExpression: 'TimeUnix',
    resourceAttributesExpression: 'ResourceAttributes',
    metricTables: {
      gauge: 'otel_metrics_gauge',
      sum: 'otel_metrics_sum',
      histogram: 'otel_metrics_histogram',
    },
  },
  trace: {
    timestampValueExpression: 'Timestamp',
    defaultTableSelectExpression: 'Timestamp, ServiceName, SpanName, Duration',
    durationExpression: 'Duration',
    durationPrecision: 9,
    traceIdExpression: 'TraceId',
    spanIdExpression: 'SpanId',
    parentSpanIdExpression: 'ParentSpanId',
    spanNameExpression: 'SpanName',
    spanKindExpression: 'SpanKind',
  },
};

function seedSources(state: SandboxState, now: number): void {
  const connections = new Map(state.services.map((s) => [s.id, objectId(now)]));
  for (const source of state.sources) {
    source.connection = connections.get(source.serviceId);
    source.from =
      source.kind === 'metric'
        ? { databaseName: 'default', tableName: null }
        : { databaseName: 'default', tableName: 'otel_logs' };
  }
  for (const service of state.services)
    state.sources.push({
      id: objectId(now),
      serviceId: service.id,
      name: 'Traces',
      kind: 'trace',
      connection: connections.get(service.id),
      from: { databaseName: 'default', tableName: 'otel_traces' },
    });
  for (const source of state.sources) source.details = structuredClone(SOURCE_DETAILS[source.kind]);
}

/** A third service, idle: its pipe calls answer 424 (the first service stays active). */
function seedIdleService(state: SandboxState, now: number): void {
  const service = {
    id: uuidV4(),
    name: 'analytics-dev',
    team: objectId(now),
    state: 'idle' as const,
  };
  state.services.push(service);
  const template = state.pipes[0];
  const pipe: Pipe = {
    ...structuredClone(template),
    id: uuidV4(),
    serviceId: service.id,
    name: 'dev-kafka',
  };
  state.pipes.push(pipe);
  state.seed.pipeIds.push(pipe.id);
  state.seed.idleServiceId = service.id;
}

/** The seeded dashboards, written in the series form and stored as the service stores them. */
function convertDashboards(state: SandboxState): void {
  for (const dashboard of state.dashboards) {
    const logs = state.sources.find((s) => s.serviceId === dashboard.serviceId && s.kind === 'log');
    dashboard.tiles = dashboard.tiles.map((tile) => {
      const series = (tile.series ?? []).map((s) => ({
        type: s.type,
        sourceId: logs?.id,
        aggFn: s.aggFn ?? 'count',
        where: s.where ?? '',
        whereLanguage: 'lucene',
        ...(s.type === 'time' || s.type === 'table' ? { groupBy: s.groupBy ?? [] } : {}),
      }));
      const input = tileSchema.parse({ ...tile, series });
      return storedTile(input, tile.id) as unknown as DashboardRow['tiles'][number];
    });
  }
}

/** A tile alert, a silenced one and an unnamed, PENDING saved-search one (`name: null`). */
function seedAlerts(state: SandboxState, now: number): void {
  const at = new Date(now).toISOString();
  const [first] = state.services;
  const webhook = state.webhooks.find((w) => w.serviceId === first.id)!;
  const overview = state.dashboards[0];
  const logs = state.sources.find((s) => s.serviceId === first.id && s.kind === 'log')!;
  const savedSearch = {
    id: objectId(now),
    serviceId: first.id,
    name: 'Errors',
    sourceId: logs.id,
    select: '',
    where: 'SeverityText:error',
    whereLanguage: 'lucene',
    tags: ['ops'],
    filters: [{ type: 'sql', condition: "ServiceName IN ('checkout', 'payments')" }],
    createdAt: at,
    updatedAt: at,
  };
  state.savedSearches = [savedSearch];
  state.seed.savedSearchId = savedSearch.id;
  const base = {
    serviceId: first.id,
    note: null,
    interval: '5m',
    state: 'OK',
    channels: [{ type: 'webhook' as const, webhookId: webhook.id }],
    teamId: first.team,
    createdAt: at,
    updatedAt: at,
  };
  const alerts: CurrentAlertRow[] = [
    {
      ...base,
      id: objectId(now),
      name: 'Too many errors',
      message: 'Error rate above threshold',
      threshold: 10,
      thresholdType: 'above',
      source: 'tile',
      dashboardId: overview.id,
      tileId: overview.tiles[0].id,
    },
    {
      ...base,
      id: objectId(now),
      name: 'Events stopped',
      message: 'No events in the last window',
      threshold: 1,
      thresholdType: 'below',
      source: 'tile',
      dashboardId: overview.id,
      tileId: overview.tiles[1].id,
      silenced: { by: null, at, until: new Date(now + UNIT_MS.d).toISOString() },
    },
    {
      ...base,
      id: objectId(now),
      name: null,
      message: null,
      // Over the threshold once so far: PENDING until two windows in a row.
      state: 'PENDING',
      numConsecutiveWindows: 2,
      interval: '15m',
      threshold: 5,
      thresholdMax: 50,
      thresholdType: 'between',
      source: 'saved_search',
      savedSearchId: savedSearch.id,
      groupBy: 'ServiceName',
    },
  ];
  replaceAlertRows(state, alerts);
}

export function seedCurrent(state: SandboxState, now: number): void {
  const at = new Date(now).toISOString();
  seedRoles(state);
  seedSources(state, now);
  state.webhooks.forEach((w, i) =>
    Object.assign(w, { service: i === 0 ? 'slack' : 'generic', createdAt: at, updatedAt: at }),
  );
  convertDashboards(state);
  seedAlerts(state, now);
  seedIdleService(state, now);
}
