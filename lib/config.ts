/**
 * The one place that reads process.env. Everything else takes these typed values as
 * parameters, so tests and the CLI pass their own.
 */
import * as z from 'zod/mini';
import { SEGMENTS } from './api/paths';
import { ConfigError, type ErrorOptions } from './errors';
import { parseOrThrow } from './format-issues';
import { coercedNumber, safeInteger, url } from './schemas/builders';
import { uuid } from './schemas/common';

/** "10/10s", "100/1m", "100/60s": at most `limit` requests in any `windowMs`. */
export const rateLimitSetting = /* @__PURE__ */ z.lazy(() =>
  z.pipe(
    z
      .string()
      .check(z.regex(/^\d+\/\d+(ms|s|m)$/, 'expected <count>/<window> such as 10/10s or 100/1m')),
    z.transform((text) => {
      const [count, window] = text.split('/') as [string, string];
      const [, amount, unit] = /^(\d+)(ms|s|m)$/.exec(window) as unknown as [
        string,
        string,
        string,
      ];
      const factor = unit === 'ms' ? 1 : unit === 's' ? 1000 : 60_000;
      return { limit: Number(count), windowMs: Number(amount) * factor };
    }),
  ),
);

/** An env list: `a, b,c` is `['a', 'b', 'c']` (blank parts dropped). */
export const envList = /* @__PURE__ */ z.lazy(() =>
  z.pipe(
    z.string(),
    z.transform((text) =>
      text
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean),
    ),
  ),
);
/** An env switch: `true`/`1` or `false`/`0`. */
export const envFlag = /* @__PURE__ */ z.lazy(() =>
  z.pipe(
    z.enum(['true', 'false', '1', '0']),
    z.transform((v) => v === 'true' || v === '1'),
  ),
);

const uuidList = /* @__PURE__ */ z.lazy(() => z.pipe(envList, z.array(uuid).check(z.minLength(1))));

/**
 * A base URL as the clients want it: the clients add the API's own prefix (`/v1`, `/api/v2`) to
 * every path, so a URL given with that prefix, or with a trailing slash, loses them here, once,
 * for the CLI, the functions and the stack alike (never `/v1/v1/...`).
 */
function baseUrl(apiPrefix: string) {
  return z.pipe(
    url().check(z.refine((url) => /^https?:\/\//i.test(url), 'expected an http(s) URL')),
    z.transform((url) => {
      const trimmed = url.replace(/\/+$/, '');
      return trimmed.endsWith(apiPrefix) ? trimmed.slice(0, -apiPrefix.length) : trimmed;
    }),
  );
}
/** The management API's base URL (`https://api.example.com`, with or without `/v1`). */
export const managementBaseUrl = /* @__PURE__ */ z.lazy(() => baseUrl(SEGMENTS.managementPrefix));
/** The observability API's base URL (the stack URL, with or without `/api/v2`). */
export const observabilityBaseUrl = /* @__PURE__ */ z.lazy(() =>
  baseUrl(SEGMENTS.observabilityPrefix),
);

/** The deployment modes, declared once (the CDK context, env and the clients use this). */
export const OBSERVABILITY_MODES = ['managed', 'open-source'] as const;
export const observabilityMode = /* @__PURE__ */ z.lazy(() => z.enum(OBSERVABILITY_MODES));
export type ObservabilityMode = z.infer<typeof observabilityMode>;

/** Log levels a deployment may choose (`silent` is for tests and the CLI). */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type DeployLogLevel = (typeof LOG_LEVELS)[number];

/**
 * The env var names the functions read, as typed values: the CDK constructs write env through
 * {@link EnvOf} records keyed by the schemas, so a renamed variable fails `tsc` on both sides.
 */
export const ENV = {
  apiUrl: 'CLOUDOPS_API_URL',
  observabilityUrl: 'CLOUDOPS_OBSERVABILITY_URL',
  organizationId: 'CLOUDOPS_ORGANIZATION_ID',
  serviceId: 'CLOUDOPS_SERVICE_ID',
  keyId: 'CLOUDOPS_KEY_ID',
  keySecret: 'CLOUDOPS_KEY_SECRET',
  observabilityToken: 'CLOUDOPS_OBSERVABILITY_TOKEN',
  observabilityMode: 'CLOUDOPS_OBSERVABILITY_MODE',
  keySecretId: 'CLOUDOPS_KEY_SECRET_ID',
  observabilityTokenSecretId: 'CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID',
  managementRateLimit: 'CLOUDOPS_MANAGEMENT_RATE_LIMIT',
  observabilityRateLimit: 'CLOUDOPS_OBSERVABILITY_RATE_LIMIT',
  requestTimeoutMs: 'CLOUDOPS_REQUEST_TIMEOUT_MS',
  logLevel: 'CLOUDOPS_LOG_LEVEL',
} as const;

/** The env-var contract of DESIGN.md (connection settings shared by the CLI and functions). */
export const connectionEnv = z.object({
  [ENV.apiUrl]: z.optional(managementBaseUrl),
  [ENV.observabilityUrl]: z.optional(observabilityBaseUrl),
  [ENV.organizationId]: z.optional(uuid),
  [ENV.serviceId]: z.optional(uuidList),
  [ENV.keyId]: z.optional(z.string().check(z.minLength(1))),
  [ENV.keySecret]: z.optional(z.string().check(z.minLength(1))),
  [ENV.observabilityToken]: z.optional(z.string().check(z.minLength(1))),
  [ENV.observabilityMode]: z._default(observabilityMode, 'managed'),
  [ENV.keySecretId]: z.optional(z.string().check(z.minLength(1))),
  [ENV.observabilityTokenSecretId]: z.optional(z.string().check(z.minLength(1))),
  [ENV.managementRateLimit]: z._default(rateLimitSetting, { limit: 10, windowMs: 10_000 }),
  [ENV.observabilityRateLimit]: z._default(rateLimitSetting, { limit: 100, windowMs: 60_000 }),
  [ENV.requestTimeoutMs]: z._default(coercedNumber().check(safeInteger(), z.positive()), 10_000),
  [ENV.logLevel]: z._default(z.enum([...LOG_LEVELS, 'silent']), 'info'),
});
export type ConnectionEnv = z.output<typeof connectionEnv>;

/**
 * Parse env with a schema; every problem is reported at once, naming the variable and what
 * was expected (never its value: some of these are secrets).
 */
export function readEnv<T extends z.ZodMiniType>(
  schema: T,
  env: Record<string, string | undefined> = process.env,
): z.output<T> {
  // Empty strings mean "unset", as in most shells' `FOO= cmd`.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  return parseOrThrow(schema, cleaned, 'env', { intro: 'invalid configuration', as: 'config' });
}

/** The variables of `env` starting with `prefix` that `schema` does not read (sorted). */
export function unreadVariables(
  schema: z.ZodMiniObject,
  prefix: string,
  env: Record<string, string | undefined> = process.env,
): string[] {
  return Object.keys(env)
    .filter((name) => name.startsWith(prefix) && env[name] !== '' && !(name in schema.shape))
    .sort();
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

/**
 * An env record a deployment writes for a schema: only names the schema reads (an unknown or
 * renamed name is a type error in the CDK construct that writes it), every value a string.
 */
export type EnvOf<S extends z.ZodMiniType> = {
  [K in keyof z.input<S> & string]?: string;
};

/**
 * Which APIs a function calls in a mode: managed mode reaches observability through the
 * management API (key, URL, service), open-source mode needs only the token. One answer for
 * the handlers' required settings and the CDK's grants.
 */
export function connectionNeeds(
  mode: ObservabilityMode,
  uses: { management?: boolean; observability?: boolean },
): { management: boolean; observability: boolean } {
  const observability = uses.observability ?? false;
  return {
    management: (uses.management ?? false) || (observability && mode === 'managed'),
    observability,
  };
}

/** The settings a function cannot start without, for the APIs it calls in its mode. */
export function requiredConnectionSettings(
  mode: ObservabilityMode,
  uses: { management?: boolean; observability?: boolean },
): (keyof ConnectionEnv)[] {
  const needs = connectionNeeds(mode, uses);
  const names: (keyof ConnectionEnv)[] = [];
  if (needs.observability) names.push(ENV.observabilityUrl);
  if (needs.management) names.push(ENV.apiUrl);
  if (needs.observability && mode === 'managed') names.push(ENV.serviceId);
  return names;
}

/** Dashboard-file variables from the environment carry this prefix (`${NAME}` ← CLOUDOPS_VAR_NAME). */
export const VAR_ENV_PREFIX = 'CLOUDOPS_VAR_';

/** The `CLOUDOPS_VAR_*` variables, by NAME (the function's and the CLI's `${NAME}` values). */
export function varsFromEnv(env: Record<string, unknown>): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (name.startsWith(VAR_ENV_PREFIX) && typeof value === 'string')
      vars[name.slice(VAR_ENV_PREFIX.length)] = value;
  }
  return vars;
}

/**
 * The service a function's dashboards and alerts belong to: the first configured one
 * (open-source mode has none).
 */
export function primaryServiceId(config: ConnectionEnv): string | undefined {
  return config.CLOUDOPS_SERVICE_ID?.[0];
}

/**
 * The field a freshly deployed secret holds until someone seeds it (cdk/constructs/secrets.ts
 * creates `{ "cloudopsNotConfigured": true, ... }`): valid JSON, recognisably not a credential.
 */
const NOT_CONFIGURED_FIELD = 'cloudopsNotConfigured';

/** The JSON a deployed secret starts as (Secrets Manager adds a random `placeholder` field). */
export const NOT_CONFIGURED_TEMPLATE = /* @__PURE__ */ JSON.stringify({
  [NOT_CONFIGURED_FIELD]: true,
});

export function isNotConfiguredSecret(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<string, unknown>)[NOT_CONFIGURED_FIELD] === true
  );
}

/** A secret still holds the deploy-time placeholder: not a failure, the deployer is not done. */
export class NotConfiguredError extends ConfigError {
  override name = 'NotConfiguredError';
  declare readonly secretId: string;
  constructor(message: string, options: ErrorOptions & { secretId: string }) {
    super(message, options);
    this.secretId = options.secretId;
  }
}
