/**
 * The one place function defaults are set: Node (newest Lambda runtime in aws-cdk-lib), arm64,
 * local esbuild bundling to a minified ESM `.mjs` with a source map beside it (not loaded at
 * start: cdk/decode-stack-trace.ts maps a logged stack offline), an explicit log group with
 * retention, JSON log format, a dead-letter queue for async invocations, and its own role
 * (no AWS managed policy: log writes are scoped to its log group).
 */
import { fileURLToPath } from 'node:url';
import * as path from 'node:path';
import { type Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ENV, type DeployLogLevel } from '../../lib/config';
import { bundleDefinesLeaving } from '../../lib/watch/notifiers/bundle-switches';
import { deadLetterQueue } from './queues';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export const RUNTIME = lambda.Runtime.NODEJS_24_X;

/**
 * ESM bundles call `require` for Node built-ins pulled in by CJS dependencies; this banner
 * gives them one (named apart so it cannot clash with a bundled `createRequire`).
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __cloudopsCreateRequire } from 'node:module'; const require = __cloudopsCreateRequire(import.meta.url);";

/**
 * node-fetch's polyfills of what Node has built in since 20 (Blob, File, FormData, DOMException)
 * and its `data:` URL decoder, replaced in the bundles by the small modules in
 * cdk/bundling-shims/ (paths from the repo root, where the bundler runs): about 8 KiB less in
 * every function that talks HTTP.
 */
export const NODE_FETCH_SHIMS: Readonly<Record<string, string>> = {
  'fetch-blob': './cdk/bundling-shims/fetch-blob.ts',
  'fetch-blob/from.js': './cdk/bundling-shims/fetch-blob.ts',
  'formdata-polyfill/esm.min.js': './cdk/bundling-shims/formdata-polyfill.ts',
  'data-uri-to-buffer': './cdk/bundling-shims/data-uri-to-buffer.ts',
};

/** Bundling options shared by every function (bench/bundle-size.ts builds with the same). */
export const BUNDLING: nodejs.BundlingOptions = {
  format: nodejs.OutputFormat.ESM,
  target: 'node24',
  minify: true,
  sourceMap: true,
  sourceMapMode: nodejs.SourceMapMode.DEFAULT,
  sourcesContent: false,
  // Prefer ESM entry points so esbuild can tree-shake (zod, middy, the SDK).
  mainFields: ['module', 'main'],
  banner: ESM_REQUIRE_BANNER,
  // Pin the SDK we test with instead of the runtime's copy (and its ESM resolution quirks).
  bundleAwsSDK: true,
  // node-fetch imports its multipart parser only inside Body.formData(), which nothing here
  // calls (4.4 KiB per bundle; test/structure/function-bundles.test.ts keeps formData() out of
  // lib/ and functions/).
  externalModules: ['./utils/multipart-parser.js'],
  esbuildArgs: {
    '--alias': Object.entries(NODE_FETCH_SHIMS).map(([name, shim]) => `${name}=${shim}`),
  },
  forceDockerBundling: false,
};

/** What every construct passes through to its functions. */
export interface FunctionDefaults {
  readonly logRetention: logs.RetentionDays;
  readonly logLevel: DeployLogLevel;
}

interface CloudOpsFunctionProps {
  /** Folder under functions/ (e.g. `pipe-watchdog`). */
  readonly folder: string;
  /** File inside it without extension. @default 'handler' */
  readonly file?: string;
  readonly description: string;
  readonly memorySize: number;
  readonly timeout: Duration;
  /** Typed per schema by the caller (EnvOf); unset members are left out. */
  readonly environment: Readonly<Record<string, string | undefined>>;
  readonly logRetention: logs.RetentionDays;
  readonly logLevel: DeployLogLevel;
  /**
   * Omit for no reservation. Reserving needs account concurrency beyond the 10 Lambda keeps
   * unreserved (cdk/README.md, `cloudops:reservedConcurrency`).
   */
  readonly reservedConcurrentExecutions?: number | undefined;
  /**
   * esbuild `define`s of this function's bundle: the notifiers it is not bound to, left out
   * (Notifications.bundleDefines). @default every notifier kept
   */
  readonly bundleDefines?: Readonly<Record<string, string>>;
}

export class CloudOpsFunction extends Construct {
  readonly fn: nodejs.NodejsFunction;
  /** The bundled entry file, repo-relative (`functions/<folder>/<file>.ts`; the bench reads it). */
  readonly entry: string;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;
  /** Receives async invocations (schedules, S3) that failed after Lambda's retries. */
  readonly deadLetterQueue: sqs.Queue;
  /** The `define`s its bundle was built with besides BUNDLING's (the bench rebuilds with them). */
  readonly bundleDefines: Readonly<Record<string, string>>;

  constructor(scope: Construct, id: string, props: CloudOpsFunctionProps) {
    super(scope, id);
    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `${props.description} (cloudops)`,
    });
    this.logGroup.grantWrite(this.role);
    this.deadLetterQueue = deadLetterQueue(this, 'DeadLetterQueue', `the ${props.folder} function`);

    this.entry = `functions/${props.folder}/${props.file ?? 'handler'}.ts`;
    // Nothing left out unless the construct says so, but decided at build time in every bundle.
    this.bundleDefines = props.bundleDefines ?? bundleDefinesLeaving([]);
    this.fn = new nodejs.NodejsFunction(this, 'Function', {
      entry: path.join(REPO_ROOT, this.entry),
      handler: 'handler',
      projectRoot: REPO_ROOT,
      depsLockFilePath: path.join(REPO_ROOT, 'package-lock.json'),
      runtime: RUNTIME,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySize,
      timeout: props.timeout,
      description: props.description,
      role: this.role,
      logGroup: this.logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      applicationLogLevelV2: lambda.ApplicationLogLevel[toAppLevel(props.logLevel)],
      systemLogLevelV2: lambda.SystemLogLevel.INFO,
      deadLetterQueue: this.deadLetterQueue,
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      bundling: { ...BUNDLING, define: { ...this.bundleDefines } },
      // No NODE_OPTIONS=--enable-source-maps: reading the map would slow every cold start
      // (bench/README.md has the measure); cdk/decode-stack-trace.ts maps a trace offline.
      environment: {
        [ENV.logLevel]: props.logLevel,
        ...definedOnly(props.environment),
      },
    });
    Validations.of(this.fn).acknowledge({
      id: 'Serverless-LambdaTracing',
      reason:
        'Runs are traced by structured JSON logs and EMF metrics; X-Ray would need a Resource:* grant (xray:PutTraceSegments has no resource-level permissions).',
    });
  }
}

function definedOnly(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

function toAppLevel(level: CloudOpsFunctionProps['logLevel']) {
  return ({ debug: 'DEBUG', info: 'INFO', warn: 'WARN', error: 'ERROR' } as const)[level];
}
