/**
 * The current profile's alert rows. The shared state types its `alerts` as the spec's shape; a
 * state holds one profile's rows, so in a current-profile state each row is a CurrentAlertRow.
 * alertRows is the one place that reads the array so; removals happen in place on it.
 */
import type { SandboxState } from '../../store';

/** Webhook channels on both APIs; email channels through the management API. */
export type Channel =
  { type: 'webhook'; webhookId: string } | { type: 'email'; emailRecipients: string[] };

export interface CurrentAlertRow {
  id: string;
  serviceId: string;
  name: string | null;
  message: string | null;
  note: string | null;
  threshold: number;
  thresholdMax?: number | null;
  interval: string;
  thresholdType: string;
  source: 'tile' | 'saved_search';
  state: string;
  channels: Channel[];
  teamId: string;
  tileId?: string;
  dashboardId?: string;
  savedSearchId?: string;
  groupBy?: string | null;
  silenced?: { by: string | null; at: string; until: string } | null;
  scheduleOffsetMinutes?: number | null;
  scheduleStartAt?: string | null;
  numConsecutiveWindows?: number | null;
  executionErrors?: { timestamp: string; type: string; message: string }[];
  createdAt: string;
  updatedAt: string;
}

/** The state's alerts, as the current profile stores them. */
export function alertRows(state: SandboxState): CurrentAlertRow[] {
  return state.alerts as unknown as CurrentAlertRow[];
}

/** Deletes the alerts `drop` picks, in place (the store persists this very array). */
export function deleteAlertRows(
  state: SandboxState,
  drop: (row: CurrentAlertRow) => boolean,
): void {
  const rows = alertRows(state);
  for (let i = rows.length - 1; i >= 0; i -= 1) if (drop(rows[i])) rows.splice(i, 1);
}

/** Replaces every alert of the state (the seed, on a fresh state). */
export function replaceAlertRows(state: SandboxState, rows: CurrentAlertRow[]): void {
  alertRows(state).splice(0, Infinity, ...rows);
}
