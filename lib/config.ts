/**
 * The one place that reads process.env. Everything else takes these typed values as
 * parameters, so tests and the CLI pass their own.
 */
import * as z from 'zod';
import { ConfigError } from './errors';
import { formatIssues } from './format-issues';
import { uuid } from './schemas/common';

/** "10/10s", "100/1m", "100/60s": at most `limit` requests in any `windowMs`. */
export const rateLimitSetting = z
  .string()
  .regex(/^\d+\/\d+(ms|s|m)$/, 'expected <count>/<window> such as 10/10s or 100/1m')
  .transform((text) => {
    const [count, window] = text.split('/') as [string, string];
    const [, amount, unit] = /^(\d+)(ms|s|m)$/.exec(window) as unknown as [string, string, string];
    const factor = unit === 'ms' ? 1 : unit === 's' ? 1000 : 60_000;
    return { limit: Number(count), windowMs: Number(amount) * factor };
  });
export type RateLimitSetting = z.output<typeof rateLimitSetting>;

const uuidList = z
  .string()
  .transform((text) =>
    text
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean),
  )
  .pipe(z.array(uuid).min(1));

export const observabilityMode = z.enum(['managed', 'open-source']);
export type ObservabilityMode = z.infer<typeof observabilityMode>;

/** The env-var contract of DESIGN.md (connection settings shared by the CLI and functions). */
export const connectionEnv = z.object({
  CLOUDOPS_API_URL: z.url().optional(),
  CLOUDOPS_OBSERVABILITY_URL: z.url().optional(),
  CLOUDOPS_ORGANIZATION_ID: uuid.optional(),
  CLOUDOPS_SERVICE_ID: uuidList.optional(),
  CLOUDOPS_KEY_ID: z.string().min(1).optional(),
  CLOUDOPS_KEY_SECRET: z.string().min(1).optional(),
  CLOUDOPS_OBSERVABILITY_TOKEN: z.string().min(1).optional(),
  CLOUDOPS_OBSERVABILITY_MODE: observabilityMode.default('managed'),
  CLOUDOPS_KEY_SECRET_ID: z.string().min(1).optional(),
  CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID: z.string().min(1).optional(),
  CLOUDOPS_MANAGEMENT_RATE_LIMIT: rateLimitSetting.default({ limit: 10, windowMs: 10_000 }),
  CLOUDOPS_OBSERVABILITY_RATE_LIMIT: rateLimitSetting.default({ limit: 100, windowMs: 60_000 }),
  CLOUDOPS_REQUEST_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  CLOUDOPS_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
});
export type ConnectionEnv = z.output<typeof connectionEnv>;

/**
 * Parse env with a schema; every problem is reported at once, naming the variable and what
 * was expected (never its value: some of these are secrets).
 */
export function readEnv<T extends z.ZodType>(
  schema: T,
  env: Record<string, string | undefined> = process.env,
): z.output<T> {
  // Empty strings mean "unset", as in most shells' `FOO= cmd`.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(
      `invalid configuration:\n  ${formatIssues(parsed.error.issues).join('\n  ')}`,
    );
  }
  return parsed.data;
}

/** Connection settings from env; `required` names the variables this caller cannot do without. */
export function readConnectionEnv(
  env: Record<string, string | undefined> = process.env,
  required: readonly (keyof ConnectionEnv)[] = [],
): ConnectionEnv {
  const config = readEnv(connectionEnv, env);
  const missing = required.filter((name) => config[name] === undefined);
  if (missing.length > 0) {
    throw new ConfigError(`missing configuration: set ${missing.join(', ')}`);
  }
  return config;
}
