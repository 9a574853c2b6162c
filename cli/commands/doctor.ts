/**
 * `cloudops doctor`: is this setup able to work? Checks the settings, the secrets and their
 * rotation, both APIs (which key the service knows us as, and when it expires), and the rate
 * budget; every failure names the setting to fix. One request per API (plus one per service and
 * one DescribeSecret per secret).
 */
import { DescribeSecretCommand } from '@aws-sdk/client-secrets-manager';
import nodeFetch from 'node-fetch';
import { ApiError, sharedRateLimiters, TransportError, type FetchLike } from '../../lib/api';
import { readConnectionEnv, type ConnectionEnv } from '../../lib/config';
import { CloudOpsError, ConfigError } from '../../lib/errors';
import { readRotationConfig } from '../../lib/keys';
import { redactText } from '../../lib/redact';
import type { ManagementKeySecret } from '../../lib/schemas';
import { formatHelp, parseCommand, type CommandSpec } from '../args';
import { connectFromEnv, secretsManagerClientFromEnv, type Connection } from '../connect';
import {
  keyCheck,
  keySettings,
  managementConfigured,
  rateLimitCheck,
  secretCheck,
  settingsCheck,
  tokenSettings,
  type Check,
  type RateHeaders,
} from '../doctor/checks';
import { EXIT } from '../exit';
import { CliFailure, describeFailure } from '../failure';
import type { CommandHelp } from '../help';
import type { CliIO, Command } from '../io';
import { assertReachable, type ServiceUrlSetting } from '../reach';
import { forTerminal } from '../../lib/text/terminal';

const spec = {
  usage: 'cloudops doctor [--json]',
  summary:
    'Check that this setup works: the settings, the Secrets Manager secrets and their rotation,\n' +
    'the management API (which key it authenticates as, by suffix, and when it expires), the\n' +
    'observability API of each service, and the rate-limit budget. Each failure names the setting\n' +
    'to fix.\n' +
    'Exit codes: 0 every check passed (warnings allowed); 1 a check failed; 64 settings missing or\n' +
    'invalid (nothing was called).',
  options: { json: { type: 'boolean' } },
  help: { json: 'print { ok, checks: [{ name, status, detail, fix? }] }' },
} satisfies CommandSpec<Record<string, { type: 'string' | 'boolean' }>>;

export const doctorHelp: CommandHelp = { spec };

type Api = 'management' | 'observability';

/** The latest rate-limit headers each API sent, read off every answer. */
function recordingFetch(seen: Map<Api, RateHeaders>): FetchLike {
  const fetch = nodeFetch as unknown as FetchLike;
  return async (url, init) => {
    const response = await fetch(url, init);
    const header = (name: string) =>
      response.headers.get(`ratelimit-${name}`) ?? response.headers.get(`x-ratelimit-${name}`);
    const remaining = header('remaining');
    if (remaining !== null) {
      const api: Api = new URL(url).pathname.includes('/api/v2/') ? 'observability' : 'management';
      seen.set(api, {
        remaining,
        ...(header('limit') !== null ? { limit: header('limit')! } : {}),
        ...(header('reset') !== null ? { reset: header('reset')! } : {}),
      });
    }
    return response;
  };
}

/** A failed call as a check: what was refused or unreachable, and which setting decides it. */
function callFailure(name: string, error: unknown, fix: { auth: string; where: string }): Check {
  // The error's own words: the fix line below names the setting.
  const detail = error instanceof CloudOpsError ? error.message : describeFailure(error);
  if (error instanceof ApiError && error.status === 401)
    return { name, status: 'fail', detail, fix: `check ${fix.auth}` };
  if (error instanceof ApiError && error.status === 404)
    return { name, status: 'fail', detail, fix: `check ${fix.where}` };
  if (error instanceof TransportError || error instanceof CliFailure)
    return { name, status: 'fail', detail, fix: `check ${fix.where}` };
  if (error instanceof CloudOpsError && /secret/i.test(error.message))
    return { name, status: 'fail', detail, fix: `check ${fix.auth} and what the secret holds` };
  return { name, status: 'fail', detail };
}

/** Connection refused or host unknown: said at once, instead of after a minute of retries. */
async function unreachable(
  env: CliIO['env'],
  setting: ServiceUrlSetting,
  signal: AbortSignal,
): Promise<Check | undefined> {
  try {
    await assertReachable(env, [setting], { signal });
    return undefined;
  } catch (error) {
    return {
      name: setting,
      status: 'fail',
      detail: describeFailure(error),
      fix: `check ${setting}`,
    };
  }
}

async function secretChecks(
  env: CliIO['env'],
  config: ConnectionEnv,
  signal: AbortSignal,
): Promise<Check[]> {
  const secrets = [
    ['CLOUDOPS_KEY_SECRET_ID', config.CLOUDOPS_KEY_SECRET_ID, 'key'],
    [
      'CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID',
      config.CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID,
      'token',
    ],
  ] as const;
  const used = secrets.filter(([, id]) => id !== undefined);
  if (used.length === 0) return [];
  const down = env.AWS_ENDPOINT_URL_SECRETS_MANAGER
    ? await unreachable(env, 'AWS_ENDPOINT_URL_SECRETS_MANAGER', signal)
    : undefined;
  if (down) return [down];
  const client = secretsManagerClientFromEnv(env);
  try {
    return await Promise.all(
      used.map(async ([setting, secretId, kind]) => {
        try {
          const described = await client.send(new DescribeSecretCommand({ SecretId: secretId }), {
            abortSignal: signal,
          });
          return secretCheck(setting, secretId!, described, kind);
        } catch (error) {
          const notFound = (error as Error).name === 'ResourceNotFoundException';
          return {
            name: `secret ${setting}`,
            status: 'fail' as const,
            detail: describeFailure(error),
            fix: notFound
              ? `check ${setting}`
              : 'check AWS_REGION, your AWS credentials and AWS_ENDPOINT_URL_SECRETS_MANAGER',
          };
        }
      }),
    );
  } finally {
    client.destroy();
  }
}

async function managementCheck(
  connection: Connection,
  warnDays: number,
  signal: AbortSignal,
): Promise<Check> {
  const { config } = connection;
  const apiUrl = config.CLOUDOPS_API_URL!;
  const fix = { auth: keySettings(config), where: 'CLOUDOPS_API_URL and CLOUDOPS_ORGANIZATION_ID' };
  try {
    // A key from Secrets Manager also names its record (the sure match); from env only its id.
    const key: Pick<ManagementKeySecret, 'keyId'> & Partial<ManagementKeySecret> =
      await connection.credentials.management!.get();
    const records = await connection.clients.requireManagement().listKeys({ signal });
    return keyCheck(records, key, { now: Date.now(), warnDays }, apiUrl);
  } catch (error) {
    if (error instanceof ApiError && error.status === 403)
      return {
        name: 'management API',
        status: 'warn',
        detail: `${apiUrl}: the key authenticates but may not list keys (403), so its expiry is not shown`,
      };
    return callFailure('management API', error, fix);
  }
}

/** One read per service: the observability objects answer, with this credential. */
async function observabilityChecks(connection: Connection, signal: AbortSignal): Promise<Check[]> {
  const { config } = connection;
  const openSource = config.CLOUDOPS_OBSERVABILITY_MODE === 'open-source';
  const services = openSource ? [undefined] : (config.CLOUDOPS_SERVICE_ID ?? []);
  return Promise.all(
    services.map(async (serviceId) => {
      const name = serviceId ? `observability (service ${serviceId})` : 'observability API';
      const fix = openSource
        ? { auth: tokenSettings(config), where: 'CLOUDOPS_OBSERVABILITY_URL' }
        : { auth: keySettings(config), where: 'CLOUDOPS_SERVICE_ID' };
      try {
        // The list every dashboards run starts with: served by every profile and mode.
        const dashboards = await connection.clients.backend(serviceId).listDashboards({ signal });
        const via = openSource
          ? `${config.CLOUDOPS_OBSERVABILITY_URL}/api/v2 accepts the token`
          : 'reachable through the management API with the key';
        return { name, status: 'ok' as const, detail: `${via}; ${dashboards.length} dashboard(s)` };
      } catch (error) {
        return callFailure(name, error, fix);
      }
    }),
  );
}

function rateChecks(connection: Connection, seen: Map<Api, RateHeaders>): Check[] {
  const { config, credentials } = connection;
  const used = (label: string | undefined, limit: { limit: number; windowMs: number }) =>
    label ? sharedRateLimiters.get(label, limit).inWindow() : 0;
  const checks: Check[] = [];
  if (credentials.management)
    checks.push(
      rateLimitCheck(
        'management key',
        used(credentials.management.label, config.CLOUDOPS_MANAGEMENT_RATE_LIMIT),
        config.CLOUDOPS_MANAGEMENT_RATE_LIMIT,
        seen.get('management'),
      ),
    );
  if (config.CLOUDOPS_OBSERVABILITY_MODE === 'open-source')
    checks.push(
      rateLimitCheck(
        'observability token',
        used(credentials.observability?.label, config.CLOUDOPS_OBSERVABILITY_RATE_LIMIT),
        config.CLOUDOPS_OBSERVABILITY_RATE_LIMIT,
        seen.get('observability'),
      ),
    );
  return checks;
}

/** Every check, in the order a person fixes them; stops after the settings when they fail. */
export async function runChecks(env: CliIO['env'], signal: AbortSignal): Promise<Check[]> {
  let config: ConnectionEnv;
  let warnDays: number;
  try {
    config = readConnectionEnv(env);
    // The sentinel's threshold, so doctor and the sentinel warn about the same key.
    warnDays = readRotationConfig(env).warnDays;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const detail = error.message.replace(/\s*\n\s*/g, '; ');
    return [
      { name: 'settings', status: 'fail', detail, fix: 'correct the settings named', setup: true },
    ];
  }
  const settings = settingsCheck(config);
  if (settings.status === 'fail') return [settings];
  const checks = [settings, ...(await secretChecks(env, config, signal))];
  const management = managementConfigured(config);
  const urls: ServiceUrlSetting[] = management ? ['CLOUDOPS_API_URL'] : [];
  if (config.CLOUDOPS_OBSERVABILITY_MODE === 'open-source') urls.push('CLOUDOPS_OBSERVABILITY_URL');
  const down = (await Promise.all(urls.map((u) => unreachable(env, u, signal)))).filter(
    (c): c is Check => c !== undefined,
  );
  if (down.length > 0) return [...checks, ...down];
  const seen = new Map<Api, RateHeaders>();
  const connection = connectFromEnv(env, { fetch: recordingFetch(seen) });
  try {
    if (management) checks.push(await managementCheck(connection, warnDays, signal));
    checks.push(...(await observabilityChecks(connection, signal)));
    checks.push(...rateChecks(connection, seen));
    return checks;
  } finally {
    connection.close();
  }
}

const MARK = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' } as const;

export function renderChecks(checks: readonly Check[]): string {
  // A detail can quote the service (a key's name): nothing in it may drive the terminal.
  const lines = checks.flatMap((c) => [
    `[${MARK[c.status]}] ${c.name}: ${forTerminal(c.detail)}`,
    ...(c.fix && c.status !== 'ok' ? [`       fix: ${forTerminal(c.fix)}`] : []),
  ]);
  const count = (s: Check['status']) => checks.filter((c) => c.status === s).length;
  lines.push(`${count('ok')} ok, ${count('warn')} warning(s), ${count('fail')} failed`);
  return redactText(lines.join('\n'));
}

export const doctorCommand: Command = {
  name: 'doctor',
  summary: 'check the settings, both APIs, the key and its expiry, the secrets and their rotation',
  async run(argv, io, signal) {
    const { values } = parseCommand(spec, argv);
    if (values.help) {
      io.out(formatHelp(spec));
      return EXIT.ok;
    }
    const checks = await runChecks(io.env, signal);
    // A check cut short by Ctrl-C is no finding: report the interrupt (exit 130).
    signal.throwIfAborted();
    const failed = checks.filter((c) => c.status === 'fail');
    if (values.json)
      io.out(redactText(JSON.stringify({ ok: failed.length === 0, checks }, null, 2)));
    else io.out(renderChecks(checks));
    if (failed.some((c) => c.setup)) return EXIT.usage;
    return failed.length > 0 ? EXIT.failure : EXIT.ok;
  },
};
