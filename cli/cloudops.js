#!/usr/bin/env -S node --
// `cloudops` in a clone: runs the built bin (dist/cloudops.js, what the package ships), rebuilding
// it first when a source file changed since the last build, so edits take effect without a step.
// `node --`: see cli/build.js (Node 20 would take our `--env-file` as its own).
import { buildIfStale } from './build.js';

await buildIfStale();
await import('../dist/cloudops.js');
