import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    // The SDK warns that its 2027 releases need Node 22; noise in every test file.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    hookTimeout: 30_000,
    setupFiles: ['test/setup/capture-logs.ts'],
    globalSetup: ['test/setup/leak-scan.ts'],
  },
});
