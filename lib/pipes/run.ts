/** One watchdog pass from settings: builds the client and notifiers, runs, closes. */
import { createManagementClient } from '../api';
import type { ManagementCredentialProvider } from '../credentials/types';
import { silentLogger, type Logger } from '../log';
import { createNotifiers, type NotifierClients } from '../notify/build';
import type { Notifier } from '../notify/types';
import type { WatchdogSettings } from './config';
import type { MetricsSink } from './metrics';
import type { StateStore } from './store';
import { parseWatchdogConfig, runWatchdog, type WatchdogResult } from './watchdog';

export interface WatchdogWiring {
  credentials: ManagementCredentialProvider;
  store: StateStore;
  /** Default: those configured in the settings. */
  notifiers?: readonly Notifier[];
  aws?: NotifierClients;
  /** @default Date.now */
  now?: () => number;
  logger?: Logger;
  metricsSink?: MetricsSink;
  signal?: AbortSignal;
}

export async function runWatchdogFromSettings(
  settings: WatchdogSettings,
  wiring: WatchdogWiring,
): Promise<WatchdogResult> {
  const config = parseWatchdogConfig(settings.watchdog);
  const logger = wiring.logger ?? silentLogger;
  const api = createManagementClient({
    baseUrl: settings.connection.CLOUDOPS_API_URL!,
    credentials: wiring.credentials,
    organizationId: config.organizationId,
    rateLimit: settings.connection.CLOUDOPS_MANAGEMENT_RATE_LIMIT,
    timeoutMs: settings.connection.CLOUDOPS_REQUEST_TIMEOUT_MS,
    deadlineMs: settings.apiDeadlineMs,
    logger,
  });
  try {
    return await runWatchdog(config, {
      api,
      store: wiring.store,
      notifiers: wiring.notifiers ?? createNotifiers(settings.notifiers, wiring.aws),
      now: wiring.now ?? Date.now,
      logger,
      metricsSink: wiring.metricsSink,
      signal: wiring.signal,
    });
  } finally {
    api.close();
  }
}
