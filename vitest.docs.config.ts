import { defineConfig } from 'vitest/config';

// `npm run test:docs`: every command the docs show, run as written (test/docs/commands.docs.ts).
// Its own CI step, not part of `npm test`: it builds and packs a copy of the checkout and
// synthesizes the stack, minutes of work a unit run should not wait for.
export default defineConfig({
  test: {
    include: ['test/docs/**/*.docs.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    fileParallelism: false,
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    setupFiles: ['test/setup/capture-logs.ts'],
    globalSetup: ['test/setup/leak-scan.ts'],
  },
});
