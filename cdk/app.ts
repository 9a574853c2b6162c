/**
 * CDK app entry (cdk.json runs it with tsx). Settings come from cdk.json context or
 * CLOUDOPS_CDK_* env vars (cdk/config.ts); CLOUDOPS_CDK_SKIP_BUNDLING=1 synthesizes without
 * running esbuild (the CLI rejects `-c aws:cdk:bundling-stacks=...`).
 */
import { ConfigError } from '../lib/errors';
import { buildApp } from './build';
import { readAppEnv } from './env';

try {
  const { app } = buildApp({ env: readAppEnv(), nag: true });
  app.synth();
} catch (error) {
  // A settings problem is the deployer's to fix: the message names every key, no stack trace.
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exitCode = 1;
}
