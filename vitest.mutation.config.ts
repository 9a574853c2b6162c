/**
 * The test set of the mutation run (`npm run test:mutation`, stryker.config.json): the unit
 * tests only. The sandbox-backed integration tests kill mutants too, but each run of one starts
 * a sandbox, which makes a run of the four planned modules take hours on a small machine; the
 * score measured without them is a lower bound of the whole suite's.
 */
import { defineConfig } from 'vitest/config';
import base from './vitest.config';

export default defineConfig({
  // Not mergeConfig: it would append to `include` rather than replace it.
  test: { ...base.test, include: ['test/unit/**/*.test.ts'] },
});
