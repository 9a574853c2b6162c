/**
 * Keys of the current service: records carry `assignedRoles`, creates and PATCHes take
 * `assignedRoleIds`; `roles` is deprecated and, once a key has an assignment, only a label.
 */
import * as z from 'zod';
import type { KeyRole } from '../../../lib/schemas';
import { badRequest, validateBody } from '../../errors';
import type { AssignedRole, KeyRow, SandboxState } from '../../store';
import type { KeyRules } from '../key-rules';

const LEGACY_ROLES = ['admin', 'developer', 'query_endpoints'] as const;
const isoDateTime = z.iso.datetime({ offset: true });
const ipAccessEntry = z.looseObject({
  source: z.string().min(1),
  description: z.string().optional(),
});
const roleFields = {
  roles: z.array(z.enum(LEGACY_ROLES)).optional(),
  assignedRoleIds: z.array(z.uuid()).optional(),
};

const createBody = z
  .object({
    name: z.string().min(1),
    expireAt: isoDateTime.nullable().optional(),
    state: z.enum(['enabled', 'disabled']).optional(),
    hashData: z
      .object({
        keyIdHash: z.string().min(1),
        keyIdSuffix: z.string().min(1),
        keySecretHash: z.string().min(1),
      })
      .optional(),
    ipAccessList: z.array(ipAccessEntry).optional(),
    ...roleFields,
  })
  .refine((b) => (b.roles?.length ?? 0) + (b.assignedRoleIds?.length ?? 0) > 0, {
    path: ['assignedRoleIds'],
    message: 'a key needs roles or assignedRoleIds',
  });

const updateBody = z.object({
  name: z.string().min(1).optional(),
  expireAt: isoDateTime.nullable().optional(),
  state: z.enum(['enabled', 'disabled']).optional(),
  ipAccessList: z.array(ipAccessEntry).optional(),
  ...roleFields,
});

const withoutGrants = ({ roleId, roleName, roleType }: AssignedRole): AssignedRole => ({
  roleId,
  roleName,
  roleType,
});

function assigned(state: SandboxState, ids: readonly string[]): AssignedRole[] {
  const catalog = state.roleCatalog ?? [];
  return [...new Set(ids)].map((id, i) => {
    const role = catalog.find((r) => r.roleId === id);
    if (!role)
      throw badRequest(`Body validation failed: assignedRoleIds[${i}]: role ${id} not found`);
    return withoutGrants(role);
  });
}

/** The system roles that stand for legacy role names. */
function fromLegacy(state: SandboxState, roles: readonly KeyRole[]): AssignedRole[] {
  return (state.roleCatalog ?? [])
    .filter((r) => r.roleType === 'system' && r.grants.some((g) => roles.includes(g)))
    .filter((r) => r.grants.length === 1)
    .map(withoutGrants);
}

/** The legacy names of the system roles in an assignment (custom roles have none). */
function toLegacy(state: SandboxState, roles: readonly AssignedRole[]): KeyRole[] {
  const catalog = state.roleCatalog ?? [];
  return roles.flatMap((a) => {
    const role = catalog.find((r) => r.roleId === a.roleId);
    return role?.roleType === 'system' ? role.grants : [];
  });
}

export const currentKeyRules: KeyRules = {
  parseCreate(body, state) {
    const { roles, assignedRoleIds, ...rest } = validateBody(createBody, body);
    const assignment = assignedRoleIds?.length
      ? assigned(state, assignedRoleIds)
      : fromLegacy(state, roles ?? []);
    return {
      body: rest,
      roles: { roles: roles ?? toLegacy(state, assignment), assignedRoles: assignment },
    };
  },
  parseUpdate(body, state) {
    const { roles, assignedRoleIds, ...rest } = validateBody(updateBody, body);
    return {
      body: rest,
      roles: {
        ...(roles ? { roles } : {}),
        ...(assignedRoleIds ? { assignedRoles: assigned(state, assignedRoleIds) } : {}),
      },
    };
  },
  view: (key: KeyRow) => ({ assignedRoles: (key.assignedRoles ?? []).map((r) => ({ ...r })) }),
};
