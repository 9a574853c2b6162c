/**
 * The webhook writes of a saved plan: what the plan file keeps (references and a salted,
 * memory-hard digest of each value, never a value) and what apply does with it (re-reads each
 * reference, refuses a value that changed or cannot be read, one line per value). Secrets go
 * through the real SDK client to the Secrets Manager emulator.
 */
import { CreateSecretCommand, PutSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ObjectChange } from '../../../lib/dashboards/objects-plan';
import {
  resolveSavedWebhooks,
  savedWebhooksOf,
  type SavedWebhook,
} from '../../../lib/dashboards/saved-webhooks';
import type { DesiredWebhook } from '../../../lib/dashboards/types';
import {
  matchesPlanDigest,
  newPlanSalt,
  planValueDigest,
} from '../../../lib/dashboards/value-digest';
import { registerSecret } from '../../../lib/redact';
import {
  sdkClient,
  startSecretsManagerServer,
  type SecretsManagerServer,
} from '../../support/secrets-manager';

const URL = 'https://hooks.example.test/unit-saved/Qw7Er5Ty3U';
const TOKEN = 'Token unit-saved-1a2b3c4d5e';
const OTHER = 'Token unit-saved-9z8y7x6w5v';
const SECRET = 'unit/saved-hook';

const hook: DesiredWebhook = {
  key: 'hooks/pager',
  sourceFile: 'hooks/pager.yaml',
  name: 'Pager',
  service: 'generic',
  url: URL,
  headers: { 'X-Token': TOKEN, 'X-Copy': TOKEN },
  templates: {
    url: 'https://${HOST}',
    headers: {
      'X-Token': { secret: SECRET, key: 'token' },
      'X-Copy': { secret: SECRET, key: 'token' },
    },
  },
};
const write = (action: ObjectChange['action'], key = hook.key): ObjectChange => ({
  kind: 'webhook',
  action,
  key,
  name: 'Pager',
  fields: [],
  alerts: [],
  alertsDeleted: [],
});

let sm: SecretsManagerServer;
beforeAll(async () => {
  for (const v of [URL, TOKEN, OTHER]) registerSecret(v);
  sm = await startSecretsManagerServer();
  const client = sdkClient(sm.url);
  await client.send(
    new CreateSecretCommand({ Name: SECRET, SecretString: JSON.stringify({ token: TOKEN }) }),
  );
  client.destroy();
});
afterAll(() => sm.close());

/** A client per run, as the CLI makes one; counts the clients made and the secrets read. */
let made = 0;
let reads = 0;
const secrets = () => {
  made += 1;
  const client = sdkClient(sm.url);
  client.middlewareStack.add(
    (next, context) => (args) => {
      if (context.commandName === 'GetSecretValueCommand') reads += 1;
      return next(args);
    },
    { step: 'initialize' },
  );
  return client;
};
const HOST = URL.slice('https://'.length);

describe('the digest a saved plan keeps of a value', () => {
  it('matches only the same value at the same place under the same salt', () => {
    const salt = newPlanSalt();
    const digest = planValueDigest(salt, 'k\0url', TOKEN);
    expect(matchesPlanDigest(digest, salt, 'k\0url', TOKEN)).toBe(true);
    expect(matchesPlanDigest(digest, salt, 'k\0url', OTHER)).toBe(false);
    expect(matchesPlanDigest(digest, salt, 'k\0headers.X', TOKEN)).toBe(false);
    expect(matchesPlanDigest(digest, newPlanSalt(), 'k\0url', TOKEN)).toBe(false);
    expect(matchesPlanDigest('short', salt, 'k\0url', TOKEN)).toBe(false);
  });

  it('a short value gives no digest a plain hash would: each plan salts it afresh', () => {
    const a = planValueDigest(newPlanSalt(), 'k\0url', 'x');
    const b = planValueDigest(newPlanSalt(), 'k\0url', 'x');
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe('a saved plan webhook writes', () => {
  it('keeps, per webhook written, the references and a digest of each value, never a value', () => {
    const salt = newPlanSalt();
    const saved = savedWebhooksOf([write('create'), write('unchanged', 'other')], [hook], salt);
    expect(
      saved.map(({ digests, ...rest }) => ({ ...rest, places: Object.keys(digests) })),
    ).toEqual([
      {
        key: hook.key,
        sourceFile: hook.sourceFile,
        name: 'Pager',
        service: 'generic',
        templates: hook.templates,
        places: ['url', 'headers.X-Token', 'headers.X-Copy'],
      },
    ]);
    const text = JSON.stringify(saved);
    for (const value of [URL, TOKEN, HOST]) expect(text).not.toContain(value);
    expect(savedWebhooksOf([write('unchanged')], [hook], salt)).toEqual([]);
  });

  it('apply gets the planned values back, reading each secret once', async () => {
    const salt = newPlanSalt();
    const webhooks = savedWebhooksOf([write('update')], [hook], salt);
    reads = 0;
    const [resolved] = await resolveSavedWebhooks([{ changes: [write('update')], webhooks }], {
      salt,
      vars: { HOST },
      secrets,
    });
    expect(resolved.get(hook.key)).toEqual(hook);
    expect(reads).toBe(1);
  });

  it('a changed variable and a changed secret are one line each, naming webhook, field and reference', async () => {
    const salt = newPlanSalt();
    const webhooks = savedWebhooksOf([write('create')], [hook], salt);
    const client = sdkClient(sm.url);
    await client.send(
      new PutSecretValueCommand({
        SecretId: SECRET,
        SecretString: JSON.stringify({ token: OTHER }),
      }),
    );
    try {
      const run = resolveSavedWebhooks([{ changes: [write('create')], webhooks }], {
        salt,
        vars: { HOST: 'hooks.example.test/elsewhere' },
        secrets,
      });
      await expect(run).rejects.toThrow(
        'nothing was applied:\n' +
          '  webhook "Pager" url (variable HOST): changed since the plan: re-plan\n' +
          `  webhook "Pager" headers.X-Token (secret ${SECRET}, key token): changed since the plan: re-plan\n` +
          `  webhook "Pager" headers.X-Copy (secret ${SECRET}, key token): changed since the plan: re-plan`,
      );
    } finally {
      await client.send(
        new PutSecretValueCommand({
          SecretId: SECRET,
          SecretString: JSON.stringify({ token: TOKEN }),
        }),
      );
      client.destroy();
    }
  });

  it('an unset variable, an unreadable secret and a plan file without values are refused', async () => {
    const salt = newPlanSalt();
    const gone: SavedWebhook = {
      ...savedWebhooksOf([write('create')], [hook], salt)[0],
      templates: {
        url: 'https://${HOST}',
        headers: {
          'X-Token': { secret: 'unit/absent' },
          'X-Copy': { secret: SECRET, key: 'token' },
        },
      },
    };
    await expect(
      resolveSavedWebhooks([{ changes: [write('create')], webhooks: [gone] }], {
        salt,
        vars: {},
        secrets,
      }),
    ).rejects.toThrow(
      'nothing was applied:\n' +
        '  webhook "Pager" url (variable HOST): not set (CLOUDOPS_VAR_HOST or --var HOST=...)\n' +
        '  webhook "Pager" headers.X-Token (secret unit/absent): secret unit/absent not found',
    );
    // Saved by an older cloudops (version 2): no values, no salt.
    await expect(
      resolveSavedWebhooks([{ changes: [write('update')], webhooks: undefined }], {
        salt: undefined,
        vars: { HOST },
        secrets,
      }),
    ).rejects.toThrow(
      /^webhook "Pager": the plan file keeps no values for it \(saved by an older cloudops\): re-plan; nothing was applied$/,
    );
  });

  it('a plan without webhook writes reads no secret (no client made)', async () => {
    made = 0;
    const out = await resolveSavedWebhooks([{ changes: [write('unchanged')], webhooks: [] }], {
      salt: newPlanSalt(),
      vars: {},
      secrets,
    });
    expect(out).toEqual([new Map()]);
    expect(made).toBe(0);
  });
});
