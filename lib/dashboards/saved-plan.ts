/**
 * A plan saved to a file (`dashboards plan --out FILE`) and applied later exactly as saved
 * (`dashboards apply FILE`). It holds what the plan saw of each dashboard it touches, so apply
 * can refuse, before any write, when the service changed in between (checkSavedPlan), and the
 * webhooks it writes as references and digests, never values (saved-webhooks.ts).
 */
import { readFile, writeFile } from 'node:fs/promises';
import * as z from 'zod/mini';
import { stringRecord } from '../schemas/builders';
import { ValidationError } from '../errors';
import type { Plan } from './plan';
import { savedWebhook, type SavedWebhook } from './saved-webhooks';

const SAVED_PLAN_FORMAT = 'cloudops-dashboards-plan';

const planShape = z.lazy(() =>
  z.looseObject({
    changes: z.array(z.looseObject({ action: z.string(), name: z.string() })),
    counts: stringRecord(z.string(), z.number()),
    alertCounts: stringRecord(z.string(), z.number()),
    notes: z.array(z.string()),
    pending: z.boolean(),
    owner: z.string(),
    alertsRead: z.boolean(),
  }),
);

/** Version 1: one service. Still read, so a plan saved by an older cloudops applies. */
const savedPlanV1 = z.lazy(() =>
  z.object({
    format: z.literal(SAVED_PLAN_FORMAT),
    version: z.literal(1),
    createdAt: z.string(),
    /** The service the plan was made against: apply refuses another one. */
    service: z.string(),
    owner: z.string(),
    plan: planShape,
  }),
);

/** Version 2: one plan per service (files may list several services). */
const savedPlanV2 = z.lazy(() =>
  z.object({
    format: z.literal(SAVED_PLAN_FORMAT),
    version: z.literal(2),
    createdAt: z.string(),
    owner: z.string(),
    plans: z.array(z.object({ service: z.string(), plan: planShape })).check(z.minLength(1)),
  }),
);

/**
 * Version 3: version 2, plus the webhooks each plan writes (references and digests) and the
 * salt of their digests. A version 2 plan that writes a webhook is refused: it has no values.
 */
const savedPlanV3 = z.lazy(() =>
  z.object({
    format: z.literal(SAVED_PLAN_FORMAT),
    version: z.literal(3),
    createdAt: z.string(),
    owner: z.string(),
    salt: z.string().check(z.minLength(16)),
    plans: z
      .array(
        z.object({
          service: z.string(),
          plan: planShape,
          webhooks: z.optional(z.array(savedWebhook)),
        }),
      )
      .check(z.minLength(1)),
  }),
);

const savedPlanFile = z.lazy(() =>
  z.discriminatedUnion('version', [savedPlanV1, savedPlanV2, savedPlanV3]),
);

/** One service's plan. */
export interface ServicePlan {
  service: string;
  plan: Plan;
}

/** One service's plan as a plan file keeps it. */
interface SavedServicePlan extends ServicePlan {
  /** The webhooks the plan creates or updates: references and digests (saved-webhooks.ts). */
  webhooks?: SavedWebhook[];
}

export interface SavedPlan {
  createdAt: string;
  owner: string;
  /** The salt of the webhook values' digests (value-digest.ts); absent before version 3. */
  salt?: string;
  plans: SavedServicePlan[];
}

/** Written as version 3: always with the salt of its digests. */
export async function writeSavedPlan(
  file: string,
  saved: SavedPlan & { salt: string },
): Promise<void> {
  const body = { format: SAVED_PLAN_FORMAT, version: 3, ...saved };
  await writeFile(file, JSON.stringify(body, null, 2) + '\n', { mode: 0o600 });
}

/** Reads and checks a saved plan; one line naming the file and what is wrong otherwise. */
export async function readSavedPlan(file: string): Promise<SavedPlan> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ValidationError(
      `plan file ${file}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`,
      { source: file },
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ValidationError(
      `plan file ${file}: not JSON (expected a file from \`dashboards plan --out\`)`,
      { source: file },
    );
  }
  const parsed = savedPlanFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ValidationError(
      `plan file ${file}: ${issue.path.join('.') || '(root)'}: ${issue.message} (expected a file from \`dashboards plan --out\`)`,
      { source: file },
    );
  }
  const data = parsed.data;
  const plans: { service: string; plan: unknown; webhooks?: SavedWebhook[] }[] =
    data.version === 1 ? [{ service: data.service, plan: data.plan }] : data.plans;
  return {
    createdAt: data.createdAt,
    owner: data.owner,
    ...(data.version === 3 ? { salt: data.salt } : {}),
    plans: plans.map((p) => ({
      service: p.service,
      plan: p.plan as Plan,
      ...(p.webhooks ? { webhooks: p.webhooks } : {}),
    })),
  };
}
