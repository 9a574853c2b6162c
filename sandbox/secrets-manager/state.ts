import * as z from 'zod';

/**
 * The emulator's persisted state: plain JSON so the sandbox can save it to a file and
 * restore it (`toJSON()` / `options.state`). Dates are epoch milliseconds.
 */
const rotationRules = z.looseObject({
  AutomaticallyAfterDays: z.number().int().min(1).max(1000).optional(),
  Duration: z.string().optional(),
  ScheduleExpression: z.string().optional(),
});
export type RotationRules = z.infer<typeof rotationRules>;

const secretVersion = z.object({
  versionId: z.string().min(1),
  /** Absent on the placeholder version RotateSecret creates before createSecret runs. */
  secretString: z.string().optional(),
  /** Base64, as the JSON protocol carries blobs. */
  secretBinary: z.string().optional(),
  stages: z.array(z.string()),
  createdDate: z.number(),
  lastAccessedDate: z.number().optional(),
});
export type SecretVersion = z.infer<typeof secretVersion>;

const secretRecord = z.object({
  arn: z.string().min(1),
  name: z.string().min(1),
  description: z.string().optional(),
  createdDate: z.number(),
  lastChangedDate: z.number(),
  lastAccessedDate: z.number().optional(),
  lastRotatedDate: z.number().optional(),
  rotationEnabled: z.boolean(),
  rotationLambdaArn: z.string().optional(),
  rotationRules: rotationRules.optional(),
  tags: z.array(z.object({ Key: z.string(), Value: z.string() })).optional(),
  /** Set when deletion is scheduled; the secret answers InvalidRequestException until then. */
  deletedDate: z.number().optional(),
  versions: z.array(secretVersion),
});
export type SecretRecord = z.infer<typeof secretRecord>;

export const secretsManagerState = z.object({ secrets: z.array(secretRecord) });
export type SecretsManagerState = z.infer<typeof secretsManagerState>;

export { rotationRules as rotationRulesSchema };

export const AWSCURRENT = 'AWSCURRENT';
export const AWSPENDING = 'AWSPENDING';
export const AWSPREVIOUS = 'AWSPREVIOUS';
