import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectFromEnv, sandboxEnv } from '../../cli/connect';
import { generateKeyMaterial, hashDataFor, keyAuthenticates } from '../../lib/keys';
import { startSandbox, type Sandbox } from '../../sandbox';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ profile: 'spec', port: 0 });
});
afterAll(() => sb.close());

it('keyAuthenticates: yes for admin and (403 on keys) developer keys, no for a wrong or disabled key', async () => {
  const { organizationId, keyId, keySecret, apiUrl } = sb.info;
  expect(await keyAuthenticates(apiUrl, { organizationId, keyId, keySecret })).toBe(true);

  const connection = connectFromEnv({ ...sandboxEnv(sb.info), CLOUDOPS_LOG_LEVEL: 'silent' });
  try {
    const admin = connection.clients.requireManagement();
    const developer = generateKeyMaterial();
    const created = await admin.createKey({
      name: 'probe-developer',
      roles: ['developer'],
      hashData: hashDataFor(developer),
    });
    expect(await keyAuthenticates(apiUrl, { organizationId, ...developer })).toBe(true);

    await admin.updateKey(created.key.id, { state: 'disabled' });
    expect(await keyAuthenticates(apiUrl, { organizationId, ...developer })).toBe(false);
  } finally {
    connection.close();
  }
  expect(
    await keyAuthenticates(apiUrl, { organizationId, keyId, keySecret: 'wrong-secret-123456' }),
  ).toBe(false);
});
