import { createManagementClient, isForbidden, isUnauthorized } from '../api';
import { staticCredentials } from '../credentials';
import { managementAuth, type ManagementAuth } from '../schemas';

/**
 * Whether the service accepts this key right now: a 401 means no; a 403 still means yes (the
 * key authenticated, it just may not list keys). One request, no retries, no client-side limit.
 */
export async function keyAuthenticates(apiUrl: string, key: ManagementAuth): Promise<boolean> {
  const client = createManagementClient({
    baseUrl: apiUrl,
    credentials: staticCredentials(`probe …${key.keyId.slice(-4)}`, key, managementAuth),
    rateLimit: false,
    retry: { maxAttempts: 1 },
  });
  try {
    await client.listKeys();
    return true;
  } catch (error) {
    if (isUnauthorized(error)) return false;
    if (isForbidden(error)) return true;
    throw error;
  } finally {
    client.close();
  }
}
