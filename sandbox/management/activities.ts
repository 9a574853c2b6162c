/**
 * The organization's audit trail (API-FACTS, "Audit trail"): key events as the service records
 * them. A change made through the API is an `openapi_key_update` with its `keyUpdateType`; a
 * key made or removed in the console is a `key_create` / `key_delete` by a user. `targetKeyId`
 * holds the key's record id here (which id the service puts there is not documented).
 */
import * as z from 'zod';
import { badRequest } from '../errors';
import { uuidV4 } from '../ids';
import { route, type Route } from '../router';
import type { ActivityRow, KeyRow, SandboxState } from '../store';
import type { ManagementHandler, ManagementRequest } from './context';

/** The oldest entries go first beyond this: the state file stays small. */
const MAX_ACTIVITIES = 1000;

/** Who made a change: the caller's key (an API change) or a person in the console. */
export interface Actor {
  actorType: 'user' | 'support' | 'system' | 'api';
  actorId: string;
  actorDetails: string;
  actorIpAddress: string;
  userAgent: string;
}

export function recordActivity(
  state: SandboxState,
  now: number,
  actor: Actor,
  event: { type: string; targetKeyId: string; keyUpdateType?: string },
): void {
  const row: ActivityRow = {
    id: uuidV4(),
    createdAt: new Date(now).toISOString(),
    organizationId: state.organizationId,
    type: event.type,
    ...(event.keyUpdateType ? { keyUpdateType: event.keyUpdateType } : {}),
    targetKeyId: event.targetKeyId,
    ...actor,
  };
  const rows = (state.activities ??= []);
  rows.push(row);
  if (rows.length > MAX_ACTIVITIES) rows.splice(0, rows.length - MAX_ACTIVITIES);
}

/** The key that authenticated the request, as the audit trail names an API actor. */
export function apiActor(req: ManagementRequest): Actor {
  return {
    actorType: 'api',
    actorId: req.key.id,
    actorDetails: `API key ${req.key.name} (…${req.key.keySuffix})`,
    actorIpAddress: req.remoteAddress,
    userAgent: req.userAgent,
  };
}

/** One `openapi_key_update` per kind of change a PATCH made (as the service splits them). */
export function keyUpdateTypes(
  body: Record<string, unknown>,
  roles: { roles?: unknown; assignedRoles?: unknown },
): string[] {
  const types: string[] = [];
  if (body.name !== undefined) types.push('name-changed');
  if (roles.roles !== undefined) types.push('role-changed');
  if (roles.assignedRoles !== undefined) types.push('roles-v2-changed');
  if (body.state !== undefined) types.push('state-changed');
  if (body.expireAt !== undefined) types.push('date-changed');
  if (body.ipAccessList !== undefined) types.push('ip-access-list-changed');
  return types;
}

/** What the seed's console-made key looks like in the trail: made by a person, not the API. */
export function consoleCreated(state: SandboxState, key: KeyRow, now: number): void {
  recordActivity(
    state,
    now,
    {
      actorType: 'user',
      actorId: uuidV4(),
      actorDetails: 'email: owner@example.com',
      actorIpAddress: '203.0.113.7',
      userAgent: 'Mozilla/5.0 (console)',
    },
    { type: 'key_create', targetKeyId: key.id },
  );
}

const isoDateTime = z.iso.datetime({ offset: true });
const range = z.object({ from_date: isoDateTime.optional(), to_date: isoDateTime.optional() });

const list: ManagementHandler = {
  admin: true,
  run(req) {
    const parsed = range.safeParse(Object.fromEntries(req.query));
    if (!parsed.success) {
      const field = parsed.error.issues[0]?.path.join('.') ?? 'query';
      throw badRequest(`Query validation failed: ${field}: expected an ISO-8601 date-time`);
    }
    const from = parsed.data.from_date ? Date.parse(parsed.data.from_date) : -Infinity;
    const to = parsed.data.to_date ? Date.parse(parsed.data.to_date) : Infinity;
    return (req.store.state.activities ?? [])
      .filter((row) => {
        const at = Date.parse(row.createdAt);
        return at >= from && at <= to;
      })
      .map((row) => ({ ...row }));
  },
};

export const activityRoutes: Route<ManagementHandler>[] = [
  route('GET', '/v1/organizations/:organizationId/activities', list),
];
