/**
 * The source and detail-types of the cloudops events (DESIGN.md "Events"), apart from their
 * schemas (schemas.ts) so a notifier that only names them bundles none of the alert schemas.
 */
export const EVENT_SOURCE = 'cloudops';
export const DASHBOARD_SYNCED = 'Dashboard Synced';
export const ALERT_PROVISION_REQUESTED = 'Alert Provision Requested';
export const PIPE_STATE_CHANGED = 'Pipe State Changed';
/** A dashboard drift notice (the sync in report mode, through the watchdog's notifiers). */
export const DASHBOARDS_DRIFTED = 'Dashboards Drifted';
/** The dashboard sync stopped at its deadline and asks for its next run (it alone consumes it). */
export const DASHBOARD_SYNC_CONTINUED = 'Dashboard Sync Continued';
