/**
 * The fault suite (issue 8 item 2 and 5): `vitest run --config vitest.faults.config.ts`.
 * FAULT_SEED picks the seed (default in test/faults/helpers.ts); the same seed gives the same run.
 */
import { defineConfig } from 'vitest/config';

const seed = process.env.FAULT_SEED;

export default defineConfig({
  test: {
    include: ['test/faults/**/*.faults.ts'],
    testTimeout: 120_000,
    hookTimeout: 30_000,
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    setupFiles: ['test/setup/capture-logs.ts'],
    globalSetup: ['test/setup/leak-scan.ts'],
    ...(seed !== undefined && seed !== '' ? { provide: { faultSeed: Number(seed) } } : {}),
  },
});
