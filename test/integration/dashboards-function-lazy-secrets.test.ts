/**
 * The deployed sync makes a Secrets Manager client only when it needs one: a run whose files
 * reference no secret (and whose credentials are values in env) constructs none. The SDK's
 * client class is the real one, counted as it is constructed.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type * as SecretsManagerSdk from '@aws-sdk/client-secrets-manager';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { s3PutEvent } from '../../bench/events';
import { BUCKET, PREFIX, syncWorld } from '../support/sync-world';

const made = vi.hoisted(() => ({ clients: 0 }));
vi.mock('@aws-sdk/client-secrets-manager', async (importOriginal) => {
  const sdk = await importOriginal<typeof SecretsManagerSdk>();
  class CountedClient extends sdk.SecretsManagerClient {
    constructor(...args: ConstructorParameters<typeof sdk.SecretsManagerClient>) {
      super(...args);
      made.clients += 1;
    }
  }
  return { ...sdk, SecretsManagerClient: CountedClient };
});

/** An example dashboard without webhooks (no secret to read). */
const DASHBOARD = path.join(import.meta.dirname, '../../dashboards/data/ingest.yml');

afterEach(() => {
  made.clients = 0;
});

describe('the sync function without webhook secrets', () => {
  it('constructs no Secrets Manager client to apply dashboards', async () => {
    const w = await syncWorld();
    w.files.set(`${PREFIX}lazy.yaml`, await readFile(DASHBOARD, 'utf8'));
    made.clients = 0;
    const run = w.handler({}, { secretsManager: undefined });
    const summary = await run(s3PutEvent(BUCKET, `${PREFIX}lazy.yaml`));
    expect(summary).toMatchObject({ mode: 'apply', counts: { create: 1 } });
    expect(made.clients).toBe(0);
  });
});
