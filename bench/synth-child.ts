/**
 * Runs the bundling synth in its own process so everything it prints (esbuild, npm) is
 * captured by bench/run.ts for the leak scan; prints the bundles as JSON on its last line.
 *   npx tsx bench/synth-child.ts <outdir>
 */
import { synthBundles } from './bundles';

const outdir = process.argv[2];
if (!outdir) throw new Error('usage: tsx bench/synth-child.ts <outdir>');
const result = synthBundles(outdir);
process.stdout.write(`\n${JSON.stringify(result)}\n`);
