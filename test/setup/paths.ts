import path from 'node:path';

/** Where each test worker drops its captured output and the secrets it handled. */
export const TEST_OUTPUT_DIR = path.resolve(import.meta.dirname, '../../.test-output');
export const CAPTURE_DIR = path.join(TEST_OUTPUT_DIR, 'capture');
