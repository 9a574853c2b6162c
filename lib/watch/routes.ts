/**
 * Routing per team, pure: which notifiers a notice is owed. A route matches pipe notices by pipe
 * id, name glob or source kind (what the pipe subject's renderer gives as `routing`), or any
 * notice by subject; a matched notice goes to the route's notifiers and its own destinations
 * (`slack:<route>` ...) at or above the route's severity floor. A notice no route matches goes
 * to the default set. The table is one JSON value: CLOUDOPS_WATCHDOG_ROUTES for the CLI, the
 * `cloudops:watchdogRoutes` context key for the stack (which grants exactly the secrets named).
 */
import * as z from 'zod/mini';
import { stringRecord } from '../schemas/builders';
import { globMatches } from '../text/glob';
import { SEVERITIES, SUBJECTS, type Notice, type RenderedNotice, type Severity } from './notice';

/** A route's own destination: a secret by id (deployed), or the secret's value (local runs). */
const destination = z.lazy(() =>
  z.union([
    z.strictObject({ secretId: z.string().check(z.minLength(1)) }),
    stringRecord(z.string(), z.unknown()).check(
      z.refine((value) => !('secretId' in value), {
        message: 'expected { "secretId": "..." } alone, or the values of the secret',
      }),
    ),
  ]),
);

const names = z.lazy(() => z.array(z.string().check(z.minLength(1))).check(z.minLength(1)));

const route = z.lazy(() =>
  z
    .strictObject({
      /** Names the route's own destinations (`slack:<name>`) in errors and pending deliveries. */
      name: z
        .string()
        .check(
          z.regex(
            /^[a-z0-9][a-z0-9-]{0,39}$/,
            'expected 1-40 lower-case letters, digits or dashes',
          ),
        ),
      pipeIds: z.optional(names),
      /** `*` stands for any run of characters, `?` for one; the whole name must match. */
      pipeNames: z.optional(names),
      /** The pipe's source member: kafka, objectStorage, kinesis, postgres, mysql, ... */
      sourceKinds: z.optional(names),
      subjects: z.optional(z.array(z.enum(SUBJECTS)).check(z.minLength(1))),
      /** Configured notifiers (sns, slack, eventbridge, ...) that get the route's notices. */
      notify: z._default(z.array(z.string().check(z.minLength(1))), []),
      /** Destinations of the route's own, by notifier: `{ "slack": { "secretId": "..." } }`. */
      destinations: z._default(stringRecord(z.string(), destination), {}),
      /** Notices below it are not sent; a recovery always is (so an incident opened is closed). */
      minSeverity: z._default(z.enum(SEVERITIES), 'info'),
    })
    .check(
      z.refine((r) => r.pipeIds ?? r.pipeNames ?? r.sourceKinds ?? r.subjects, {
        message: 'expected at least one of pipeIds, pipeNames, sourceKinds, subjects',
      }),
      z.refine((r) => r.notify.length > 0 || Object.keys(r.destinations).length > 0, {
        message: 'expected notify or destinations: a route that sends nowhere drops its notices',
      }),
    ),
);
type Route = z.output<typeof route>;

export const routeTable = z.lazy(() =>
  z
    .strictObject({
      routes: z.array(route).check(z.minLength(1), z.maxLength(20)),
      /** Where a notice no route matches goes; default: every notifier configured by env. */
      default: z.optional(z.array(z.string().check(z.minLength(1)))),
      /** Notifiers that get every notice, routed or not; default: eventbridge (when configured). */
      always: z.optional(z.array(z.string().check(z.minLength(1)))),
    })
    .check(
      z.superRefine((table, ctx) => {
        const seen = new Set<string>();
        table.routes.forEach((r, i) => {
          if (seen.has(r.name))
            ctx.addIssue({ code: 'custom', path: ['routes', i, 'name'], message: 'used twice' });
          seen.add(r.name);
        });
      }),
    ),
);
export type RouteTable = z.output<typeof routeTable>;

/** The table from its JSON text (an env variable, a context value). */
export const routeTableJson = z.lazy(() =>
  z.pipe(
    z.pipe(
      z.string(),
      z.transform((text, ctx) => {
        try {
          return JSON.parse(text) as unknown;
        } catch {
          ctx.issues.push({
            code: 'custom',
            message: 'expected a JSON routing table',
            input: text,
          });
          return z.NEVER;
        }
      }),
    ),
    routeTable,
  ),
);

/** The notifier a route's own destination makes: `slack:team-a`. */
export const destinationName = (notifier: string, routeName: string) => `${notifier}:${routeName}`;

/** `a.b[0].c` for an issue path. */
export function pathText(path: readonly PropertyKey[]): string {
  return path
    .map((part, i) =>
      typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${String(part)}`,
    )
    .join('');
}

/**
 * What in the table names something that is not there: a notifier not configured (notify,
 * default, always), or an own destination of a notifier that has none (`destinations` keys).
 */
export function unknownNames(
  table: RouteTable,
  configured: readonly string[],
  withDestinations: readonly string[],
): string[] {
  const problems: string[] = [];
  const check = (where: string, list: readonly string[] | undefined, known: readonly string[]) =>
    list?.forEach((name, i) => {
      if (!known.includes(name))
        problems.push(`${where}[${i}]: "${name}" is not one of ${known.join(', ') || '(none)'}`);
    });
  table.routes.forEach((r, i) => {
    check(`routes[${i}].notify`, r.notify, configured);
    for (const notifier of Object.keys(r.destinations))
      if (!withDestinations.includes(notifier))
        problems.push(
          `routes[${i}].destinations.${notifier}: expected one of ${withDestinations.join(', ')}`,
        );
  });
  check('default', table.default, configured);
  check('always', table.always, configured);
  return problems;
}

const RANK: Record<Severity, number> = { info: 0, warning: 1, critical: 2 };

/** Every matcher the route sets holds (any of its values); pipe matchers need a pipe's notice. */
function matches(r: Route, n: Notice, routing: RenderedNotice['routing']): boolean {
  if (r.subjects && !r.subjects.includes(n.subject)) return false;
  if (!r.pipeIds && !r.pipeNames && !r.sourceKinds) return true;
  if (!routing) return false;
  if (r.pipeIds && !r.pipeIds.includes(routing.pipeId)) return false;
  if (r.pipeNames && !r.pipeNames.some((glob) => globMatches(glob, routing.pipeName))) return false;
  return !r.sourceKinds || (!!routing.sourceKind && r.sourceKinds.includes(routing.sourceKind));
}

/**
 * The notifier names `n` is owed under `table`: its routes' (each at or above its floor), or
 * `defaults` when no route matches it, plus the `always` ones.
 */
export function routeNotice(
  table: RouteTable,
  n: Notice,
  routing: RenderedNotice['routing'],
  defaults: { notifiers: readonly string[]; always: readonly string[] },
): Set<string> {
  const matched = table.routes.filter((r) => matches(r, n, routing));
  const chosen =
    matched.length === 0
      ? (table.default ?? defaults.notifiers)
      : matched
          .filter((r) => n.resolves || RANK[n.severity] >= RANK[r.minSeverity])
          .flatMap((r) => [
            ...r.notify,
            ...Object.keys(r.destinations).map((notifier) => destinationName(notifier, r.name)),
          ]);
  return new Set([...chosen, ...(table.always ?? defaults.always)]);
}
