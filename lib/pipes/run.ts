/**
 * One watchdog pass from settings. The caller brings the client (functions/connect.ts in
 * Lambda, cli/connect.ts in the CLI, both through lib/clients.ts) and the notifiers (made
 * once, so their secrets stay cached).
 */
import type { ClientSettings } from '../clients';
import { silentLogger } from '../log';
import type { WatchdogSettings } from './config';
import { runWatchdog, type WatchdogDeps, type WatchdogResult } from './watchdog';
import { parseWatchdogConfig } from './watchdog-config';

type WatchdogWiring = Omit<WatchdogDeps, 'now'> & {
  /** @default Date.now */
  now?: () => number;
};

/** What the watchdog adds to the connection settings of the env contract. */
export function watchdogClientSettings(settings: WatchdogSettings): Partial<ClientSettings> {
  // Retries of one listing stop early: a failing service is retried on the next run.
  return { deadlineMs: settings.apiDeadlineMs };
}

export function runWatchdogFromSettings(
  settings: WatchdogSettings,
  wiring: WatchdogWiring,
): Promise<WatchdogResult> {
  return runWatchdog(parseWatchdogConfig(settings.watchdog), {
    ...wiring,
    now: wiring.now ?? Date.now,
    logger: wiring.logger ?? silentLogger,
  });
}
