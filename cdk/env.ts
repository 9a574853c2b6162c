/** The env vars the CDK app reads (through lib/config.ts, the one reader of process.env). */
import * as z from 'zod';
import { readEnv } from '../lib/config';
import { CONTEXT_KEYS, envNameFor } from './config';

const optional = z.string().optional();

const appEnvSchema = z.object({
  CDK_DEFAULT_ACCOUNT: optional,
  CDK_DEFAULT_REGION: optional,
  CLOUDOPS_CDK_SKIP_BUNDLING: z.enum(['1', 'true', '0', 'false']).optional(),
  /**
   * A JSON file of `cloudops:*` settings, used for keys neither -c nor cdk.json sets (CI
   * synthesizes with cdk/context.example.json; a deployment may keep its own file).
   */
  CLOUDOPS_CDK_CONTEXT_FILE: optional,
  ...Object.fromEntries(CONTEXT_KEYS.map((key) => [envNameFor(key), optional])),
});

export type AppEnv = Record<string, string | undefined>;

export function readAppEnv(env?: Record<string, string | undefined>): AppEnv {
  return readEnv(appEnvSchema, env);
}
