import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { runRotationStep, type RotationDeps } from '../../lib/keys';
import { rotationDepsFromEnv } from './deps';
import { validateRotationEvent, type RotationEvent } from './event';

/**
 * The Secrets Manager rotation function: validate the event, run its step. Deps are built on
 * the first invocation (importing the module touches neither env nor network).
 */
export function createRotationHandler(deps: RotationDeps | (() => RotationDeps)) {
  let resolved: RotationDeps | undefined;
  const get = () => (resolved ??= typeof deps === 'function' ? deps() : deps);
  return middy<unknown, void, Error, Context>()
    .use(validateRotationEvent())
    .handler(async function rotateKey(raw) {
      const event = raw as RotationEvent;
      await runRotationStep(get(), event.Step, {
        secretId: event.SecretId,
        token: event.ClientRequestToken,
      });
    });
}

export const handler = createRotationHandler(rotationDepsFromEnv);
