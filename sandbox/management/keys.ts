import { registerSecret } from '../../lib/redact';
import type { IpAccessEntry } from '../../lib/schemas';
import { isValidIpSource } from '../auth';
import { badRequest, conflict, notFound } from '../errors';
import { newKeyMaterial, sha256Base64, uuidV4 } from '../ids';
import { route } from '../router';
import type { Route } from '../router';
import type { KeyRow } from '../store';
import { apiActor, keyUpdateTypes, recordActivity } from './activities';
import type { ManagementHandler, ManagementRequest } from './context';

const KEYS_PER_ORGANIZATION = 100;
const ORG = '/v1/organizations/:organizationId';

/** The key record as the API shows it: no hashes; the profile adds its fields (assignedRoles). */
function keyView(key: KeyRow, req: Pick<ManagementRequest, 'profile'>): Record<string, unknown> {
  const view: Record<string, unknown> = {
    id: key.id,
    name: key.name,
    roles: [...key.roles],
    keySuffix: key.keySuffix,
    createdAt: key.createdAt,
    expireAt: key.expireAt,
    ipAccessList: key.ipAccessList.map((entry) => ({ ...entry })),
    state: key.state,
  };
  if (key.usedAt) view.usedAt = key.usedAt;
  return { ...view, ...req.profile.keys.view(key) };
}

function checkIpList(list: IpAccessEntry[] | undefined): void {
  list?.forEach((entry, index) => {
    if (!isValidIpSource(entry.source.trim())) {
      throw badRequest(
        `Body validation failed: ipAccessList[${index}].source: not an IP address or IPv4 CIDR`,
      );
    }
  });
}

function findKey(req: ManagementRequest): KeyRow {
  const key = req.store.key(req.params.keyRecordId);
  if (!key) throw notFound(`API key ${req.params.keyRecordId} not found`);
  return key;
}

const list: ManagementHandler = {
  admin: true,
  run: (req) => req.store.state.keys.map((key) => keyView(key, req)),
};

const get: ManagementHandler = { admin: true, run: (req) => keyView(findKey(req), req) };

const create: ManagementHandler = {
  admin: true,
  run(req) {
    const { body, roles } = req.profile.keys.parseCreate(req.body, req.store.state);
    checkIpList(body.ipAccessList);
    const keys = req.store.state.keys;
    if (keys.length >= KEYS_PER_ORGANIZATION) {
      throw badRequest(`organization already has the maximum of ${KEYS_PER_ORGANIZATION} API keys`);
    }
    let material: { keyId: string; keySecret: string } | undefined;
    let hashes: { keyIdHash: string; keySecretHash: string; keySuffix: string };
    if (body.hashData) {
      const { keyIdHash, keySecretHash, keyIdSuffix } = body.hashData;
      if (keys.some((k) => k.keyIdHash === keyIdHash))
        throw conflict('a key with this keyIdHash already exists');
      hashes = { keyIdHash, keySecretHash, keySuffix: keyIdSuffix.slice(-4) };
    } else {
      material = newKeyMaterial();
      registerSecret(material.keySecret);
      hashes = {
        keyIdHash: sha256Base64(material.keyId),
        keySecretHash: sha256Base64(material.keySecret),
        keySuffix: material.keyId.slice(-4),
      };
    }
    const key: KeyRow = {
      id: uuidV4(),
      name: body.name,
      roles: [...new Set(roles.roles ?? [])],
      ...(roles.assignedRoles ? { assignedRoles: roles.assignedRoles } : {}),
      ...hashes,
      createdAt: new Date(req.now).toISOString(),
      expireAt: body.expireAt ?? null,
      ipAccessList: body.ipAccessList ?? [],
      state: body.state ?? 'enabled',
    };
    keys.push(key);
    recordActivity(req.store.state, req.now, apiActor(req), {
      type: 'openapi_key_update',
      keyUpdateType: 'created',
      targetKeyId: key.id,
    });
    req.store.changed();
    // The secret leaves the server once, here; with hashData the server never had it.
    return material
      ? { key: keyView(key, req), keyId: material.keyId, keySecret: material.keySecret }
      : { key: keyView(key, req) };
  },
};

const update: ManagementHandler = {
  admin: true,
  run(req) {
    const key = findKey(req);
    const { body, roles } = req.profile.keys.parseUpdate(req.body, req.store.state);
    checkIpList(body.ipAccessList);
    if (body.name !== undefined) key.name = body.name;
    if (roles.roles !== undefined) key.roles = [...new Set(roles.roles)];
    if (roles.assignedRoles !== undefined) key.assignedRoles = roles.assignedRoles;
    if (body.state !== undefined) key.state = body.state;
    if (body.expireAt !== undefined) key.expireAt = body.expireAt;
    if (body.ipAccessList !== undefined) key.ipAccessList = body.ipAccessList;
    for (const keyUpdateType of keyUpdateTypes(body, roles)) {
      recordActivity(req.store.state, req.now, apiActor(req), {
        type: 'openapi_key_update',
        keyUpdateType,
        targetKeyId: key.id,
      });
    }
    req.store.changed();
    return keyView(key, req);
  },
};

const remove: ManagementHandler = {
  admin: true,
  run(req) {
    const key = findKey(req);
    if (key.id === req.key.id) throw badRequest('an API key cannot delete itself');
    req.store.state.keys = req.store.state.keys.filter((k) => k.id !== key.id);
    recordActivity(req.store.state, req.now, apiActor(req), {
      type: 'openapi_key_update',
      keyUpdateType: 'deleted',
      targetKeyId: key.id,
    });
    req.store.changed();
    return undefined;
  },
};

export const keyRoutes: Route<ManagementHandler>[] = [
  route('GET', `${ORG}/keys`, list),
  route('POST', `${ORG}/keys`, create),
  route('GET', `${ORG}/keys/:keyRecordId`, get),
  route('PATCH', `${ORG}/keys/:keyRecordId`, update),
  route('DELETE', `${ORG}/keys/:keyRecordId`, remove),
];
