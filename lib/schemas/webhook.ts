import * as z from 'zod/mini';
import { stringRecord, url } from './builders';
import { lenient } from './common';

/** What a create or update may name; reads may also show `slack_api` and `pagerduty_api`. */
const WEBHOOK_SERVICES = ['slack', 'incidentio', 'generic'] as const;

/** The fields `slack` refuses: it posts a fixed payload to its URL. */
const SLACK_REFUSES = ['body', 'headers', 'queryParams'] as const;

/**
 * A webhook as read: `{ id, name, service, url?, description?, body?, createdAt, updatedAt }`.
 * `headers` and `queryParams` are write-only and never come back, so nothing here can tell
 * whether they drifted.
 */
export const webhook = /* @__PURE__ */ z.lazy(() =>
  z.looseObject({
    id: z.string().check(z.minLength(1)),
    name: z.nullish(z.string()),
    service: z.nullish(z.string()),
    url: lenient(z.string()),
    description: lenient(z.string()),
    body: lenient(z.string()),
    createdAt: lenient(z.string()),
    updatedAt: lenient(z.string()),
  }),
);
export type Webhook = z.infer<typeof webhook>;

const stringMap = /* @__PURE__ */ z.lazy(() =>
  stringRecord(z.string().check(z.minLength(1)), z.string()),
);

/**
 * Create and update body (the same for both). On update an omitted `headers`/`queryParams` is
 * kept by the service and `{}` clears it, while omitted `description`/`body` are cleared; a change
 * of `url` or `service` clears omitted headers and query params too.
 */
export const webhookWrite = /* @__PURE__ */ z.lazy(() =>
  z
    .object({
      name: z.string().check(z.trim(), z.minLength(1)),
      service: z.enum(WEBHOOK_SERVICES),
      url: url({ protocol: /^https?$/ }),
      description: z.optional(z.string()),
      body: z.optional(z.string()),
      headers: z.optional(stringMap),
      queryParams: z.optional(stringMap),
    })
    .check(
      z.superRefine((body, ctx) => {
        if (body.service !== 'slack') return;
        for (const field of SLACK_REFUSES) {
          if (body[field] !== undefined)
            ctx.addIssue({
              code: 'custom',
              path: [field],
              message: 'not supported for the slack webhook service',
            });
        }
      }),
    ),
);
export type WebhookWrite = z.input<typeof webhookWrite>;
