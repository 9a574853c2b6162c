import * as z from 'zod';
import { formatIssues } from '../../lib/format-issues';
import { invalidParameter } from './errors';
import { rotationRulesSchema } from './state';
import { listFilter, tag } from './tags';

/** Request bodies of the supported operations (loose: the SDK may send members we ignore). */

const secretId = z.string().min(1).max(2048);
/** AWS: 32-64 characters; the SDK fills a UUID in when the caller leaves it out. */
const clientRequestToken = z.string().min(32).max(64);
const stage = z.string().min(1).max(256);
const secretName = z
  .string()
  .min(1)
  .max(512)
  .regex(/^[A-Za-z0-9/_+=.@-]+$/, 'only letters, digits and /_+=.@- are allowed');

export const createSecretInput = z.looseObject({
  Name: secretName,
  ClientRequestToken: clientRequestToken.optional(),
  Description: z.string().max(2048).optional(),
  SecretString: z.string().max(65536).optional(),
  SecretBinary: z.string().optional(),
  Tags: z.array(tag).optional(),
});

export const putSecretValueInput = z.looseObject({
  SecretId: secretId,
  ClientRequestToken: clientRequestToken.optional(),
  SecretString: z.string().max(65536).optional(),
  SecretBinary: z.string().optional(),
  VersionStages: z.array(stage).min(1).max(20).optional(),
});

export const getSecretValueInput = z.looseObject({
  SecretId: secretId,
  VersionId: z.string().min(1).max(64).optional(),
  VersionStage: stage.optional(),
});

export const secretIdInput = z.looseObject({ SecretId: secretId });

export const updateSecretVersionStageInput = z.looseObject({
  SecretId: secretId,
  VersionStage: stage,
  MoveToVersionId: z.string().min(1).max(64).optional(),
  RemoveFromVersionId: z.string().min(1).max(64).optional(),
});

export const listSecretVersionIdsInput = z.looseObject({
  SecretId: secretId,
  IncludeDeprecated: z.boolean().optional(),
});

export const listSecretsInput = z.looseObject({
  IncludePlannedDeletion: z.boolean().optional(),
  Filters: z.array(listFilter).max(10).optional(),
  MaxResults: z.number().int().min(1).max(100).optional(),
  NextToken: z.string().min(1).optional(),
});

export const tagResourceInput = z.looseObject({ SecretId: secretId, Tags: z.array(tag) });
export const untagResourceInput = z.looseObject({
  SecretId: secretId,
  TagKeys: z.array(z.string().min(1).max(128)),
});

export const deleteSecretInput = z.looseObject({
  SecretId: secretId,
  RecoveryWindowInDays: z.number().int().min(7).max(30).optional(),
  ForceDeleteWithoutRecovery: z.boolean().optional(),
});

export const rotateSecretInput = z.looseObject({
  SecretId: secretId,
  ClientRequestToken: clientRequestToken.optional(),
  RotationLambdaARN: z.string().min(1).max(2048).optional(),
  RotationRules: rotationRulesSchema.optional(),
  RotateImmediately: z.boolean().optional(),
});

/** Validate a request body; a mismatch answers InvalidParameterException naming the fields. */
export function parseInput<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  throw invalidParameter(`Invalid request: ${formatIssues(result.error.issues).join('; ')}`);
}
