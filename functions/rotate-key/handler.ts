import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { runRotationStep, type RotationDeps } from '../../lib/keys/rotation';
import { silentLogger } from '../../lib/log';
import { NOT_CONFIGURED_RESPONSE } from '../connect';
import { lazyHandler, notConfiguredMiddleware } from '../runtime';
import { rotationDepsFromEnv } from './deps';
import { validateRotationEvent, type RotationEvent } from './event';

/**
 * The Secrets Manager rotation function (one function rotates every key secret of the stack,
 * each on its own schedule): validate the event, run its step. A secret still holding its
 * deploy-time placeholder is "not configured yet": one info line, no failure.
 */
export function createRotationHandler(deps: RotationDeps) {
  return middy<unknown, unknown, Error, Context>()
    .use(
      notConfiguredMiddleware<unknown>({
        logger: deps.logger ?? silentLogger,
        response: NOT_CONFIGURED_RESPONSE,
      }),
    )
    .use(validateRotationEvent())
    .handler(async function rotateKey(raw) {
      const event = raw as RotationEvent;
      await runRotationStep(deps, event.Step, {
        secretId: event.SecretId,
        token: event.ClientRequestToken,
      });
    });
}

/** Deps are built on the first invocation (importing the module touches neither env nor network). */
export const handler = lazyHandler(() => createRotationHandler(rotationDepsFromEnv()));
