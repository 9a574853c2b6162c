/**
 * A function's bundle as the stack makes it, for the structure tests that check what it carries
 * (function-bundles.test.ts and the bundle-*.test.ts files): built once per entry
 * and test file.
 */
import { build, type Metafile } from 'esbuild';
import path from 'node:path';
import type { CloudOpsFunction } from '../../cdk/constructs/function';
import type { CloudOpsStack } from '../../cdk/stack';
import { synth } from '../cdk/helpers';

const ROOT = path.resolve(import.meta.dirname, '../..');

interface Bundle {
  /** The repo files in it: what is left after tree shaking (metafile.inputs lists all it read). */
  files: string[];
  metafile: Metafile;
  /** The output, unminified unless asked (esbuild names a kept namespace object `<module>_exports`). */
  text: string;
}

const built = new Map<string, Promise<Bundle>>();

interface BundleOptions {
  /** The esbuild `define`s a construct gives the function (CloudOpsFunction.bundleDefines). */
  define?: Record<string, string>;
  minify?: boolean;
}

/**
 * The esbuild `define`s each deployment's stack (its context) gives one function, from a synth
 * without bundling: what `bundleOf` needs to build that deployment's bundle.
 */
export function definesPerDeployment(
  deployments: Record<string, Record<string, unknown>>,
  functionOf: (stack: CloudOpsStack) => CloudOpsFunction,
): Map<string, Record<string, string>> {
  return new Map(
    Object.entries(deployments).map(([name, context]) => {
      const synthesized = synth(context);
      try {
        return [name, { ...functionOf(synthesized.stack).bundleDefines }];
      } finally {
        synthesized.cleanup();
      }
    }),
  );
}

/** The bundle of `entry` as the stack makes it (SDK external here, ESM, node), once per run. */
export function bundleOf(entry: string, options: BundleOptions = {}): Promise<Bundle> {
  const key = `${entry} ${JSON.stringify(options)}`;
  let bundle = built.get(key);
  if (!bundle) built.set(key, (bundle = buildBundle(entry, options)));
  return bundle;
}

async function buildBundle(entry: string, { define, minify }: BundleOptions): Promise<Bundle> {
  const result = await build({
    define,
    minify,
    entryPoints: [path.join(ROOT, entry)],
    absWorkingDir: ROOT,
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    mainFields: ['module', 'main'],
    external: ['@aws-sdk/*'],
    logLevel: 'silent',
  });
  const [output] = Object.values(result.metafile.outputs);
  const files = Object.entries(output.inputs)
    .filter(([file, { bytesInOutput }]) => bytesInOutput > 0 && !file.includes('node_modules'))
    .map(([file]) => file);
  return { files, metafile: result.metafile, text: result.outputFiles[0].text };
}
