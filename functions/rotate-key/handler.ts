/**
 * The Secrets Manager rotation function (one function rotates every key secret of the stack,
 * each on its own schedule): parse the event, wire the deps from env, run its step in lib/keys.
 * A secret still holding its deploy-time placeholder is "not configured yet": one info line, no
 * failure.
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { parseOrThrow } from '../../lib/format-issues';
import {
  rotateKey,
  rotationDepsFromEnv,
  rotationEvent,
  type RotationDeps,
} from '../../lib/keys/entry';
import { silentLogger } from '../../lib/log';
import { NOT_CONFIGURED_RESPONSE } from '../connect';
import { lazyHandler, notConfiguredMiddleware } from '../runtime';

export function createRotationHandler(deps: RotationDeps) {
  return middy<unknown, unknown, Error, Context>()
    .use(
      notConfiguredMiddleware<unknown>({
        logger: deps.logger ?? silentLogger,
        response: NOT_CONFIGURED_RESPONSE,
      }),
    )
    .handler(function rotateKeyStep(raw) {
      // A malformed event fails naming each bad field (the event holds no secret).
      const event = parseOrThrow(rotationEvent, raw, 'event', 'Invalid rotation event');
      return rotateKey(deps, event);
    });
}

/** Deps are built on the first invocation (importing the module touches neither env nor network). */
export const handler = lazyHandler(() =>
  createRotationHandler(rotationDepsFromEnv(new SecretsManagerClient({}))),
);
