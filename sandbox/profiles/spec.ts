/** The spec's snapshot: what the sandbox served before profiles existed. */
import { createKeyRequest, updateKeyRequest } from './spec-schemas';
import { validateBody } from '../errors';
import { observabilityRoutes } from '../management/observability';
import { apiV2Routes } from '../observability/routes';
import type { Profile } from './index';

export const specProfile: Profile = {
  name: 'spec',
  apiV2Routes,
  managementObservabilityRoutes: observabilityRoutes,
  metricsRoutes: [],
  keys: {
    parseCreate(body) {
      const parsed = validateBody(createKeyRequest, body);
      return { body: parsed, roles: { roles: parsed.roles } };
    },
    parseUpdate(body) {
      const parsed = validateBody(updateKeyRequest, body);
      return { body: parsed, roles: parsed.roles ? { roles: parsed.roles } : {} };
    },
    view: () => ({}),
  },
  invalidObjectIdMessage: (value) =>
    `Params validation failed: id: "${value}" is not a 24-character hex id`,
  seed: () => undefined,
};
