/**
 * The deployed bundles and their baselines. The function bundles come from a CDK synth WITH
 * bundling (the stack's own esbuild run: cdk/constructs/function.ts BUNDLING), so what is
 * measured is what would deploy. Baselines and the metafile analysis use the esbuild API with
 * BUNDLING translated option by option; `sameAsCdk` checks the translation byte for byte.
 */
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildApp } from '../cdk/build';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import { BUNDLING, REPO_ROOT } from '../cdk/constructs/function';
import { BASE_CONTEXT } from './bundle-context';

export const FUNCTIONS = [
  'rotate-key',
  'key-sentinel',
  'sync-dashboards',
  'provision-alerts',
  'pipe-watchdog',
  'pipe-watchdog-consumer',
] as const;
export type FunctionName = (typeof FUNCTIONS)[number];

/**
 * Deployments whose context makes the stack bundle a function from another entry, measured
 * beside the default one: the sync in report mode (cdk/constructs/dashboard-sync.ts).
 */
export const VARIANTS = {
  'sync-dashboards-report': {
    of: 'sync-dashboards',
    context: { 'cloudops:dashboardsScheduleMode': 'report' },
  },
} as const satisfies Record<string, { of: FunctionName; context: Record<string, unknown> }>;
export type VariantName = keyof typeof VARIANTS;
export type BundleName = FunctionName | VariantName;

export interface CdkBundle<Name extends BundleName = FunctionName> {
  function: Name;
  /** Folder holding index.mjs (+ .map) as the synth wrote it. */
  dir: string;
  file: string;
  bytes: number;
  mapBytes: number;
  /** The Lambda entry file (repo-relative), as the function's construct bundles it. */
  entry: string;
  memorySize: number;
  /** Environment.Variables as synthesized (strings, or tokens of deployed resources). */
  environment: Record<string, unknown>;
  /** The esbuild `define`s of this function's bundle besides BUNDLING (its construct's). */
  define: Record<string, string>;
}

/**
 * Synthesizes the stack with bundling into `outdir`; one bundle per function, then one synth
 * per variant (in a folder of `outdir`) for the bundle it changes.
 */
export function synthBundles(outdir: string): {
  bundles: CdkBundle[];
  variants: CdkBundle<VariantName>[];
  synthMs: number;
} {
  const started = performance.now();
  const deployed = synthStack(outdir, {});
  const bundles = FUNCTIONS.map((name) => deployed(name, name));
  const variants = Object.entries(VARIANTS).map(([name, v]) =>
    synthStack(path.join(outdir, name), v.context)(v.of, name as VariantName),
  );
  return { bundles, variants, synthMs: performance.now() - started };
}

type Template = {
  Resources: Record<
    string,
    {
      Type: string;
      Metadata?: Record<string, string>;
      Properties?: {
        MemorySize?: number;
        Environment?: { Variables?: Record<string, unknown> };
      };
    }
  >;
};

/** One bundling synth; answers each function's bundle under the name asked. */
function synthStack(outdir: string, context: Record<string, unknown>) {
  const { app, stack } = buildApp({
    outdir,
    bundling: true,
    cfnValidation: false,
    treeMetadata: false,
    // Asset paths in the template's metadata (the CLI turns this on by default).
    context: { ...BASE_CONTEXT, 'aws:cdk:enable-asset-metadata': true, ...context },
  });
  const assembly = app.synth();
  const template = assembly.getStackByName(stack.stackName).template as Template;
  const constructs = {
    'rotate-key': stack.keyRotation.rotator,
    'key-sentinel': stack.keyRotation.sentinel,
    'sync-dashboards': stack.dashboardSync.sync,
    'provision-alerts': stack.alertProvisioning.provision,
    'pipe-watchdog': stack.pipeWatchdog.watchdog,
    'pipe-watchdog-consumer': stack.pipeWatchdog.consumer,
  } satisfies Record<FunctionName, unknown>;
  return <Name extends BundleName>(of: FunctionName, name: Name): CdkBundle<Name> => {
    const f = constructs[of];
    // The function's own CloudFormation resource (a NodejsFunction's default child).
    const logicalId = stack.getLogicalId(f.fn.node.defaultChild as lambda.CfnFunction);
    const resource = template.Resources[logicalId];
    const assetPath = resource?.Metadata?.['aws:asset:path'];
    if (!assetPath) throw new Error(`no bundled asset for ${name}`);
    const dir = path.join(outdir, assetPath);
    const file = path.join(dir, 'index.mjs');
    return {
      function: name,
      dir,
      file,
      bytes: statSync(file).size,
      mapBytes: statSync(file + '.map').size,
      entry: f.entry,
      memorySize: resource.Properties?.MemorySize ?? NaN,
      environment: resource.Properties?.Environment?.Variables ?? {},
      define: { ...f.bundleDefines },
    };
  };
}

/**
 * BUNDLING as esbuild API options, as aws-lambda-nodejs turns it into CLI flags. An option
 * this does not know fails here, so a change to BUNDLING cannot silently skew the baselines.
 */
export function esbuildOptions(): BuildOptions {
  const known = new Set([
    'format',
    'target',
    'minify',
    'sourceMap',
    'sourceMapMode',
    'sourcesContent',
    'mainFields',
    'banner',
    'bundleAwsSDK',
    'externalModules',
    'forceDockerBundling',
    'esbuildArgs',
  ]);
  const unknown = Object.keys(BUNDLING).filter((k) => !known.has(k));
  if (unknown.length > 0)
    throw new Error(`bench: BUNDLING option(s) not translated: ${unknown.join(', ')}`);
  if (BUNDLING.sourceMapMode && BUNDLING.sourceMapMode !== nodejs.SourceMapMode.DEFAULT) {
    throw new Error(`bench: sourceMapMode ${BUNDLING.sourceMapMode} not translated`);
  }
  return {
    bundle: true,
    platform: 'node',
    target: BUNDLING.target,
    format: BUNDLING.format === nodejs.OutputFormat.ESM ? 'esm' : 'cjs',
    minify: BUNDLING.minify ?? false,
    sourcemap: Boolean(BUNDLING.sourceMap ?? BUNDLING.sourceMapMode),
    sourcesContent: BUNDLING.sourcesContent ?? true,
    mainFields: BUNDLING.mainFields,
    banner: BUNDLING.banner ? { js: BUNDLING.banner } : undefined,
    // As aws-lambda-nodejs does: externalModules if given, else @aws-sdk/* unless bundleAwsSDK.
    external: BUNDLING.externalModules ?? (BUNDLING.bundleAwsSDK ? [] : ['@aws-sdk/*']),
    alias: aliasesOf(BUNDLING.esbuildArgs ?? {}),
    logLevel: 'silent',
  };
}

/** `esbuildArgs` as API options: only `--alias` (a list of `name=path`, as the CLI flag takes). */
function aliasesOf(args: NonNullable<nodejs.BundlingOptions['esbuildArgs']>) {
  const { '--alias': aliases, ...rest } = args;
  const unknown = Object.keys(rest);
  if (unknown.length > 0)
    throw new Error(`bench: esbuildArgs not translated: ${unknown.join(', ')}`);
  if (aliases === undefined) return undefined;
  if (!Array.isArray(aliases)) throw new Error('bench: esbuildArgs --alias must be a list');
  return Object.fromEntries(
    aliases.map((item) => {
      const at = item.indexOf('=');
      if (at <= 0) throw new Error(`bench: esbuildArgs --alias item "${item}" is not name=path`);
      return [item.slice(0, at), item.slice(at + 1)];
    }),
  );
}

export interface EsbuildBundle {
  file: string;
  bytes: number;
  metafile: Metafile;
}

/**
 * Builds `entry` (absolute) with the stack's options, and the function's own `define`s if any,
 * into `outDir/index.mjs`, with a metafile.
 */
export async function buildWithStackOptions(
  entry: string,
  outDir: string,
  define: Record<string, string> = {},
): Promise<EsbuildBundle> {
  mkdirSync(outDir, { recursive: true });
  const file = path.join(outDir, 'index.mjs');
  const result = await build({
    ...esbuildOptions(),
    define,
    entryPoints: [entry],
    outfile: file,
    absWorkingDir: REPO_ROOT,
    metafile: true,
  });
  writeFileSync(path.join(outDir, 'meta.json'), JSON.stringify(result.metafile));
  return { file, bytes: statSync(file).size, metafile: result.metafile };
}

/** True when two builds produced the same bytes (the translation of BUNDLING is exact). */
export function sameBytes(a: string, b: string): boolean {
  return readFileSync(a).equals(readFileSync(b));
}

export interface SizeGroup {
  /** A package (`@aws-sdk/client-s3`, `zod`) or `src:lib/dashboards` for our code. */
  group: string;
  bytes: number;
}

/** Output bytes per package (or per repo folder), largest first, from an esbuild metafile. */
export function sizeByPackage(metafile: Metafile): SizeGroup[] {
  const totals = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const group = packageOf(input);
      totals.set(group, (totals.get(group) ?? 0) + bytesInOutput);
    }
  }
  return [...totals].map(([group, bytes]) => ({ group, bytes })).sort((a, b) => b.bytes - a.bytes);
}

function packageOf(input: string): string {
  // Third-party code kept in the repo counts as itself, not as the folder holding it.
  const vendored = /\/vendor\/([^/.]+)/.exec(input);
  if (vendored) return `vendor:${vendored[1]}`;
  const at = input.lastIndexOf('node_modules/');
  if (at < 0) {
    const parts = input.split('/');
    return `src:${parts.slice(0, Math.min(2, parts.length - 1)).join('/') || input}`;
  }
  const rest = input.slice(at + 'node_modules/'.length).split('/');
  return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
}

/** Bytes in `fn` over `base` per group (what the function adds to its SDK clients). */
export function sizeDelta(fn: SizeGroup[], base: SizeGroup[]): SizeGroup[] {
  const baseBy = new Map(base.map((g) => [g.group, g.bytes]));
  return fn
    .map((g) => ({ group: g.group, bytes: g.bytes - (baseBy.get(g.group) ?? 0) }))
    .filter((g) => g.bytes !== 0)
    .sort((a, b) => b.bytes - a.bytes);
}
