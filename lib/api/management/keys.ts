import * as z from 'zod/mini';
import { registerSecret } from '../../redact';
import { activity, type Activity } from '../../schemas/activity';
import {
  createKeyRequest,
  createKeyResult,
  keyRecord,
  updateKeyRequest,
  type CreateKeyRequest,
  type CreateKeyResult,
  type KeyRecord,
  type UpdateKeyRequest,
} from '../../schemas/key';
import type { CallOptions } from '../http';
import * as P from './paths';
import { validateBody } from '../validate-body';
import type { ManagementConnection } from './connection';

export type KeyReadOperations = ReturnType<typeof keyReadOperations>;
export type KeyWriteOperations = ReturnType<typeof keyWriteOperations>;
export type ActivityOperations = ReturnType<typeof activityOperations>;

/**
 * Keys (spec 4.3, 4.4 and API-FACTS extras) and the activities that tell who made them, in
 * three groups: the rotator reads and writes keys, the sentinel reads keys and activities.
 */
export function keyOperations(connection: ManagementConnection) {
  return {
    ...keyReadOperations(connection),
    ...keyWriteOperations(connection),
    ...activityOperations(connection),
  };
}

export function keyWriteOperations({ organizationId: org, call }: ManagementConnection) {
  return {
    /**
     * Without hashData a repeated POST would mint a second key, so it is retried only when
     * the server surely did not process it; with hashData a duplicate answers 409.
     */
    async createKey(body: CreateKeyRequest, opts?: CallOptions): Promise<CreateKeyResult> {
      const path = P.keys(await org());
      const valid = validateBody(createKeyRequest, body, 'POST', path);
      const result = await call(
        {
          method: 'POST',
          path,
          body: valid,
          schema: createKeyResult,
          idempotency: valid.hashData ? 'idempotent' : 'unsafe',
        },
        opts,
      );
      registerSecret(result.keySecret);
      return result;
    },
    async updateKey(
      keyRecordId: string,
      body: UpdateKeyRequest,
      opts?: CallOptions,
    ): Promise<KeyRecord> {
      const path = P.key(await org(), keyRecordId);
      const valid = validateBody(updateKeyRequest, body, 'PATCH', path);
      return call({ method: 'PATCH', path, body: valid, schema: keyRecord }, opts);
    },
    async deleteKey(keyRecordId: string, opts?: CallOptions): Promise<void> {
      return call({ method: 'DELETE', path: P.key(await org(), keyRecordId), schema: null }, opts);
    },
  };
}

export function keyReadOperations({ organizationId: org, call }: ManagementConnection) {
  return {
    async listKeys(opts?: CallOptions): Promise<KeyRecord[]> {
      return call({ method: 'GET', path: P.keys(await org()), schema: z.array(keyRecord) }, opts);
    },
    async getKey(keyRecordId: string, opts?: CallOptions): Promise<KeyRecord> {
      return call(
        { method: 'GET', path: P.key(await org(), keyRecordId), schema: keyRecord },
        opts,
      );
    },
  };
}

export function activityOperations({ organizationId: org, call }: ManagementConnection) {
  return {
    /** The organization's activities between two ISO times (one unpaginated array, all types). */
    async listActivities(
      range: { from: string; to: string },
      opts?: CallOptions,
    ): Promise<Activity[]> {
      const path = P.activities(await org(), range);
      return call({ method: 'GET', path, schema: z.array(activity) }, opts);
    },
  };
}
