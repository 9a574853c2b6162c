/**
 * The service's own check of what a plan would write, before any write: every dashboard the
 * plan creates or updates goes to the dry-run validate, and its refusals become file problems
 * (`file:line field: message`) that stop the run. Unchanged dashboards cost no request. A
 * service that cannot judge ("validation unavailable") is asked once per run: the plan goes on
 * with a note, checked by the local rules only.
 */
import type { CallOptions } from '../api/http';
import type { ObservabilityBackend } from '../api/observability-backend';
import { dashboardFilesError } from './load';
import { locateIn } from './parse';
import { writeBody, type Plan } from './plan';
import type { FileIssue } from './types';

interface RemoteValidateOptions {
  /** The text of a file, to place the service's paths on its lines (absent: no position). */
  readonly readFile?: (file: string) => Promise<string>;
  /** Named in the error (the folder or the S3 prefix). */
  readonly label: string;
  readonly call?: CallOptions;
}

/** What remote validation cost and said; `unavailable` is the note the plan carries. */
interface RemoteValidation {
  requests: number;
  unavailable?: string;
}

/** The API's dotted path (`tiles.0.config.select`) as a file path: `['tiles', 0, 'config', 'select']`. */
function pathOfDotted(dotted: string): (string | number)[] {
  if (dotted === '') return [];
  return dotted.split('.').map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

/** `tiles[0].config.select` for a path. */
function pathLabel(path: readonly (string | number)[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

/**
 * Validates on the service every dashboard the plan would write; throws DashboardFilesError
 * (every refusal of every dashboard) before any write.
 */
export async function validateRemotely(
  plan: Plan,
  backend: Pick<ObservabilityBackend, 'validateDashboard'>,
  options: RemoteValidateOptions,
): Promise<RemoteValidation> {
  const validate = backend.validateDashboard;
  const outcome: RemoteValidation = { requests: 0 };
  if (!validate) return outcome;
  const issues: FileIssue[] = [];
  for (const change of plan.changes) {
    if ((change.action !== 'create' && change.action !== 'update') || !change.desired) continue;
    const body = writeBody(change.desired, change.tileIds, plan.owner);
    outcome.requests += 1;
    const answer = await validate(
      { ...body, name: change.desired.name, tiles: body.tiles ?? [] },
      options.call,
    );
    if (answer.outcome === 'unavailable') {
      // Asking again would cost one request per dashboard for the same answer.
      outcome.unavailable = `the service could not validate the dashboards (${answer.reason}); they were checked by the local rules only`;
      return outcome;
    }
    if (answer.outcome === 'valid') continue;
    const file = change.desired.sourceFile;
    const text = options.readFile ? await readOrNothing(options.readFile, file) : undefined;
    for (const error of answer.errors) {
      const path = pathOfDotted(error.path);
      issues.push({
        file,
        ...(text !== undefined ? await locateIn(text, path) : {}),
        path: pathLabel(path),
        message: `the service refuses it: ${error.message}`,
      });
    }
  }
  if (issues.length > 0) throw dashboardFilesError(options.label, issues);
  return outcome;
}

async function readOrNothing(
  read: (file: string) => Promise<string>,
  file: string,
): Promise<string | undefined> {
  try {
    return await read(file);
  } catch {
    // Changed or gone since it was validated: the problem is still reported, without a line.
    return undefined;
  }
}
