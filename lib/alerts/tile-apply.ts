/**
 * Executes a dashboard's planned tile alerts (tile-plan.ts) once its dashboard is written and
 * every tile has its id: deletes first, then updates and creates, one at a time. A failure is
 * per alert; an interrupt stops between two writes and lists the rest as not applied.
 */
import { CloudOpsError } from '../errors';
import { redactText } from '../redact';
import { markedBody, searchAlert, tileAlert, type DesiredAlert } from './desired';
import type { AlertChange } from './tile-plan';
import type { AlertWriter } from './write';

export interface AlertResult {
  action: AlertChange['action'];
  name: string;
  tile: string;
  id?: string;
  status: 'done' | 'failed' | 'not applied';
  message?: string;
}

/** The written dashboard the alerts attach to. */
export interface DashboardAlertTarget {
  dashboardKey: string;
  dashboardId: string;
  /** Tile identity (key, else name) -> id after the write. */
  tileIds: ReadonlyMap<string, string>;
  /** The version written into the markers (the sync's time). */
  version: string;
}

/** The written saved search the alerts attach to. */
export interface SearchAlertTarget {
  searchKey: string;
  savedSearchId: string;
  version: string;
}

export type TileAlertTarget = DashboardAlertTarget | SearchAlertTarget;

export async function applyTileAlerts(
  changes: readonly AlertChange[],
  target: TileAlertTarget,
  writer: AlertWriter,
  signal?: AbortSignal,
): Promise<AlertResult[]> {
  const out: AlertResult[] = [];
  // Deletes first: a re-created alert of the same name must not meet its predecessor.
  const ordered = [...changes].sort(
    (a, b) => Number(b.action === 'delete') - Number(a.action === 'delete'),
  );
  for (const change of ordered) {
    const head = { action: change.action, name: change.name, tile: change.tile };
    // The stop point: between two writes.
    if (signal?.aborted) {
      out.push({ ...head, ...(change.id ? { id: change.id } : {}), status: 'not applied' });
      continue;
    }
    try {
      const id = await writeOne(change, target, writer);
      out.push({ ...head, id, status: 'done' });
    } catch (error) {
      if (signal?.aborted) throw error;
      out.push({
        ...head,
        ...(change.id ? { id: change.id } : {}),
        status: 'failed',
        message: describe(error),
      });
    }
  }
  return out;
}

/** One planned change; resolves to the alert's id. */
async function writeOne(
  change: AlertChange,
  target: TileAlertTarget,
  writer: AlertWriter,
): Promise<string> {
  if (change.action === 'delete') {
    await writer.remove(change.id!);
    return change.id!;
  }
  const d = desiredOf(change, target);
  const body = markedBody(d, target.version);
  if (change.action === 'update') {
    await writer.update(change.id!, body);
    return change.id!;
  }
  return (await writer.create(d.id, body)).value.id;
}

function desiredOf(change: AlertChange, target: TileAlertTarget): DesiredAlert {
  if ('savedSearchId' in target)
    return searchAlert(target.searchKey, target.savedSearchId, change.want!);
  const tileId = target.tileIds.get(change.tileIdentity);
  if (!tileId) throw new CloudOpsError(`tile "${change.tile}" has no id after the write`);
  const link = { dashboardId: target.dashboardId, tileId };
  return tileAlert(target.dashboardKey, change.tileIdentity, link, change.want!);
}

function describe(error: unknown): string {
  if (error instanceof CloudOpsError) return error.message;
  return redactText(error instanceof Error ? error.message : String(error));
}
