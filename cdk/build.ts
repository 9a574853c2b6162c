/** Builds the app and its stack; cdk/app.ts, the tests and bench/bundle-size.ts share it. */
import { readFileSync } from 'node:fs';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { ConfigError } from '../lib/errors';
import { readStackConfig, type StackConfig } from './config';
import type { AppEnv } from './env';
import { CloudOpsStack } from './stack';

const STACK_NAME = 'CloudOps';

interface BuildAppOptions {
  /** CDK_DEFAULT_*, CLOUDOPS_CDK_* (see cdk/env.ts). */
  readonly env?: AppEnv;
  /** Extra context (tests); the CLI passes cdk.json's through the environment. */
  readonly context?: Record<string, unknown>;
  readonly outdir?: string;
  /** @default true unless env CLOUDOPS_CDK_SKIP_BUNDLING is set */
  readonly bundling?: boolean;
  /** Register the cdk-nag packs as validation plugins (synth fails on a finding). */
  readonly nag?: boolean;
  /**
   * aws-cdk-lib's built-in CloudFormation template validation (a WASM engine, ~4 s here).
   * @default true; the tests turn it off, `cdk synth` in CI keeps it.
   */
  readonly cfnValidation?: boolean;
  /** @default true */
  readonly treeMetadata?: boolean;
  /** @default 'CloudOps' */
  readonly stackName?: string;
}

/** `{ "cloudops:apiUrl": ..., ... }` from a JSON file; a bad file fails naming it. */
function readContextFile(file: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const reason = error instanceof SyntaxError ? 'not valid JSON' : 'cannot be read';
    throw new ConfigError(`CLOUDOPS_CDK_CONTEXT_FILE ${file}: ${reason}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError(
      `CLOUDOPS_CDK_CONTEXT_FILE ${file}: expected a JSON object of cloudops:* keys`,
    );
  }
  return parsed as Record<string, unknown>;
}

export function buildApp(options: BuildAppOptions = {}): {
  app: App;
  stack: CloudOpsStack;
  config: StackConfig;
} {
  const env = options.env ?? {};
  const skip = env.CLOUDOPS_CDK_SKIP_BUNDLING;
  const bundling = options.bundling ?? !(skip === '1' || skip === 'true');
  const app = new App({
    outdir: options.outdir,
    context: options.context,
    builtinCloudFormationValidation: options.cfnValidation ?? true,
    treeMetadata: options.treeMetadata ?? true,
    // Bundling is skipped for every stack when this lists none.
    postCliContext: bundling ? undefined : { 'aws:cdk:bundling-stacks': [] },
  });
  const file = env.CLOUDOPS_CDK_CONTEXT_FILE ? readContextFile(env.CLOUDOPS_CDK_CONTEXT_FILE) : {};
  const config = readStackConfig(
    (key) => (app.node.tryGetContext(key) as unknown) ?? file[key],
    env,
  );
  const stack = new CloudOpsStack(app, options.stackName ?? STACK_NAME, {
    config,
    description: 'cloudops: key rotation, dashboards as code, alert provisioning, pipe watchdog',
    env:
      env.CDK_DEFAULT_ACCOUNT || env.CDK_DEFAULT_REGION
        ? { account: env.CDK_DEFAULT_ACCOUNT, region: env.CDK_DEFAULT_REGION }
        : undefined,
  });
  if (options.nag) {
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
  }
  return { app, stack, config };
}
