/**
 * The alerts engine: the one planner and writer of alerts, for events and for a dashboard
 * sync's tile alerts alike.
 * - marker.ts: the ownership marker in every alert cloudops writes (the API has no labels).
 * - desired.ts: what is wanted: events as desired sets; tileAlert(), the one body builder.
 * - compare.ts: what an alert says, read one way for declarations, bodies and read-backs.
 * - plan.ts: events against the service (copies, versions, orphans) -> steps. Pure.
 * - tile-plan.ts: declared alerts against the service -> changes, for a holder that is a
 *   dashboard (alerts on its tiles) or a saved search (alerts on the search itself). Pure.
 * - write.ts: create (once, through lib/api createOnce), update, delete.
 * - provision.ts, batch.ts: executor of event plans; tile-apply.ts: of tile alert changes.
 * - versions*.ts, ledger.ts: the newest event per owner, shared with the dashboard sync.
 * Alerts on a saved search are a marker owner kind (`s/`), a builder beside tileAlert()
 * (searchAlert) and a holder kind of tile-plan.ts; the writes and the executors are the same.
 */
export * from './marker';
export * from './mutex';
export * from './desired';
export * from './compare';
export * from './versions';
export * from './versions-file';
export * from './versions-dynamo';
export * from './plan';
export * from './provision';
export * from './batch';
export * from './ledger';
export * from './tile-plan';
export * from './tile-apply';
export * from './write';
