/**
 * The shared Lambda runtime of functions/: every log line of an invocation carries its request
 * and event ids in the keys Lambda's JSON log format reads; the deadline handed to lib; and a
 * freshly deployed function whose secrets still hold their placeholder answering "not
 * configured yet" once, without failing.
 */
import { PutSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clientsMiddleware, NOT_CONFIGURED_RESPONSE } from '../../../functions/connect';
import { deadlineFrom, invocationLogFields, lazyHandler } from '../../../functions/runtime';
import { EVERY_OPERATION } from '../../../lib/all-clients';
import { NOT_CONFIGURED_TEMPLATE, readConnectionEnv } from '../../../lib/config';
import { clearCredentialsCache } from '../../../lib/credentials';
import { createLogger, withLogContext } from '../../../lib/log';
import { startCountingServer, type CountingServer } from '../credentials/fixtures';

const context = (requestId = 'req-1', remainingMs?: number) =>
  ({
    awsRequestId: requestId,
    functionName: 'fn',
    ...(remainingMs === undefined ? {} : { getRemainingTimeInMillis: () => remainingMs }),
  }) as unknown as Context;

function capture() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    sink: (line) => lines.push(JSON.parse(line) as Record<string, unknown>),
  });
  return { lines, logger };
}

describe('log lines', () => {
  it('carry timestamp (RFC 3339) and level, as Lambda JSON log filtering reads them', () => {
    const { lines, logger } = capture();
    logger.warn('hello', { a: 1 });
    expect(lines[0]).toMatchObject({ level: 'warn', message: 'hello', a: 1 });
    expect(lines[0].timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(lines[0]).not.toHaveProperty('time');
  });

  it('lazyHandler: every line of an invocation carries its request id and event id, async work included', async () => {
    const { lines, logger } = capture();
    let created = 0;
    const handler = lazyHandler(() => {
      created++;
      return async (event: unknown) => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        logger.info('working');
        // A batch loop adds each record's id.
        await withLogContext({ messageId: 'm-2' }, () => Promise.resolve(logger.info('record')));
        return event;
      };
    });
    await handler({ id: 'evt-1', 'detail-type': 'Scheduled Event' }, context('req-A'));
    await handler({ Records: [{ messageId: 'm-1', body: '{}' }] }, context('req-B'));
    expect(created).toBe(1);
    expect(lines.map((l) => [l.message, l.requestId, l.eventId ?? l.messageId])).toEqual([
      ['working', 'req-A', 'evt-1'],
      ['record', 'req-A', 'evt-1'],
      ['working', 'req-B', 'm-1'],
      ['record', 'req-B', 'm-2'],
    ]);
    // Outside an invocation no ids leak from the previous one.
    logger.info('after');
    expect(lines.at(-1)).not.toHaveProperty('requestId');
  });

  it('the scheduled and event-driven entry points are lazyHandler (ids on every line)', async () => {
    const entries = {
      'pipe-watchdog': (await import('../../../functions/pipe-watchdog/handler')).handler,
      'pipe-watchdog consumer': (await import('../../../functions/pipe-watchdog/consumer')).handler,
      'rotate-key': (await import('../../../functions/rotate-key/handler')).handler,
      'key sentinel': (await import('../../../functions/rotate-key/sentinel')).handler,
      'sync-dashboards': (await import('../../../functions/sync-dashboards/handler')).handler,
      'sync-dashboards report': (await import('../../../functions/sync-dashboards/report-handler'))
        .handler,
      'provision-alerts': (await import('../../../functions/provision-alerts/handler')).handler,
    };
    for (const [name, entry] of Object.entries(entries))
      expect(entry.name, name).toBe(lazyHandler(() => () => Promise.resolve()).name);
  });

  it('names the rotation step and token of a Secrets Manager rotation event', () => {
    expect(
      invocationLogFields(
        { SecretId: 'arn:s', ClientRequestToken: 'tok-1', Step: 'createSecret' },
        { awsRequestId: 'r' },
      ),
    ).toEqual({ requestId: 'r', rotationToken: 'tok-1', rotationStep: 'createSecret' });
  });
});

describe('deadlineFrom', () => {
  it("keeps a margin of the Lambda's remaining time and aborts at the deadline", async () => {
    let now = 1_000_000;
    const d = deadlineFrom(context('r', 60_000), { now: () => now });
    expect(d.at).toBe(1_000_000 + 54_000); // 10% margin
    now += 50_000;
    expect(d.remainingMs()).toBe(4000);
    const short = deadlineFrom(context('r', 1050), { marginMs: 1000 });
    expect(short.signal.aborted).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(short.signal.aborted).toBe(true);
  });

  it("follows middy's own timeout signal", () => {
    const controller = new AbortController();
    const d = deadlineFrom(context('r', 60_000), { signal: controller.signal });
    controller.abort();
    expect(d.signal.aborted).toBe(true);
  });

  it('never fires outside Lambda (no remaining time)', () => {
    const d = deadlineFrom(context('r'));
    expect(d.at).toBe(Infinity);
    expect(d.signal.aborted).toBe(false);
  });
});

describe('a function deployed before its secrets are seeded', () => {
  let server: CountingServer;
  beforeEach(async () => {
    server = await startCountingServer();
    // What cdk/constructs/secrets.ts creates: valid JSON, plus a random field Secrets Manager adds.
    const placeholder = JSON.stringify({
      ...JSON.parse(NOT_CONFIGURED_TEMPLATE),
      placeholder: 'x7Yq0AbCdEf',
    });
    server.emulator.createSecret({ name: 'key', secretString: placeholder });
    server.emulator.createSecret({ name: 'token', secretString: placeholder });
  });
  afterEach(async () => {
    clearCredentialsCache();
    await server.close();
  });

  it('answers "not configured yet" with one info line per container, no error', async () => {
    const { lines, logger } = capture();
    const config = readConnectionEnv({
      CLOUDOPS_API_URL: 'https://api.example.test/v1',
      CLOUDOPS_OBSERVABILITY_URL: 'https://obs.example.test',
      CLOUDOPS_SERVICE_ID: '22222222-2222-4222-8222-222222222222',
      CLOUDOPS_KEY_SECRET_ID: 'key',
      CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID: 'token',
    });
    let ran = 0;
    const handler = lazyHandler(() =>
      middy<unknown, unknown, Error, Context>()
        .use(
          clientsMiddleware({
            config,
            needs: { management: true, observability: true },
            kit: EVERY_OPERATION,
            secretsManager: server.client,
            logger,
          }),
        )
        .handler(() => {
          ran++;
          return Promise.resolve('done');
        }),
    );
    await expect(handler({ id: 'e1' }, context('r1'))).resolves.toEqual(NOT_CONFIGURED_RESPONSE);
    clearCredentialsCache();
    await expect(handler({ id: 'e2' }, context('r2'))).resolves.toEqual(NOT_CONFIGURED_RESPONSE);
    expect(ran).toBe(0);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'info', requestId: 'r1', eventId: 'e1' });
    expect(String(lines[0].message)).toMatch(/not configured yet/);
  });

  it('works once the secret is seeded (after the secret cache expires)', async () => {
    const config = readConnectionEnv({
      CLOUDOPS_OBSERVABILITY_URL: 'https://obs.example.test',
      CLOUDOPS_OBSERVABILITY_MODE: 'open-source',
      CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID: 'token',
    });
    const handler = middy<unknown, unknown, Error, Context>()
      .use(
        clientsMiddleware({
          config,
          needs: { management: false, observability: true },
          kit: EVERY_OPERATION,
          secretsManager: server.client,
        }),
      )
      .handler(() => Promise.resolve('done'));
    await expect(handler({}, context())).resolves.toEqual(NOT_CONFIGURED_RESPONSE);
    await server.client.send(
      new PutSecretValueCommand({ SecretId: 'token', SecretString: '{"token":"seeded-token-1"}' }),
    );
    clearCredentialsCache();
    await expect(handler({}, context())).resolves.toBe('done');
  });
});
