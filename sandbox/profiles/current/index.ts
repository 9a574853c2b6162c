/** The current service (API-FACTS, "The service as it stands today" and the August 2026 contract). */
import type { Profile } from '../index';
import { metricsRoutes } from '../../metrics/routes';
import { currentKeyRules } from './keys';
import { apiV2Routes, managementObservabilityRoutes } from './routes';
import { seedCurrent } from './seed';

export const currentProfile: Profile = {
  name: 'current',
  apiV2Routes,
  managementObservabilityRoutes,
  metricsRoutes,
  keys: currentKeyRules,
  invalidObjectIdMessage: () => 'Params validation failed: id: Invalid ObjectId',
  seed: seedCurrent,
};
