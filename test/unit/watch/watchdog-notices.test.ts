/**
 * The watchdog's stored notices are read by subject exactly as zod's discriminated union of
 * its two subjects reads them (lib/watch/subjects/watchdog.ts stands in for it): the same
 * notice out of a good one, the same issues (code, path, message) out of a bad one.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import '../../../lib/format-issues';
import { pipeNotice } from '../../../lib/watch/subjects/pipe';
import { serviceNotice } from '../../../lib/watch/subjects/service';
import { WATCHDOG_NOTICES } from '../../../lib/watch/subjects/watchdog';
import { failedPipeNotice } from '../../support/notices';

const zods = z.discriminatedUnion('subject', [pipeNotice, serviceNotice]);

const pipe = failedPipeNotice();
const service = {
  ...pipe,
  subject: 'service',
  kind: 'idle',
  severity: 'info',
  dedupKey: 'service/org/svc/idle',
};
delete (service as Partial<typeof pipe>).pipeId;
delete (service as Partial<typeof pipe>).pipeName;

/** What a parse gives, comparable: the data, or each issue's code, path and message. */
function outcome(schema: z.ZodMiniType, input: unknown) {
  const r = schema.safeParse(input);
  return r.success
    ? { data: r.data }
    : { issues: r.error.issues.map(({ code, path, message }) => ({ code, path, message })) };
}

describe("the watchdog's notices, read by subject", () => {
  it.each([
    ['a pipe notice', pipe],
    ['a service notice', service],
    ['a pipe notice with a field of the wrong type', { ...pipe, pipeName: 7 }],
    ['a service notice missing its service', { ...service, serviceId: undefined }],
    ['an unknown subject', { ...pipe, subject: 'dashboards' }],
    ['no subject at all (after the pipe-shaped reading)', 'not a notice'],
    ['null', null],
  ])('%s: as zod reads it', (_name, input) => {
    const ours = outcome(WATCHDOG_NOTICES.schema, input);
    expect(ours).toEqual(
      outcome(
        z.pipe(
          z.transform((v) => v),
          zods,
        ),
        input,
      ),
    );
    // a good notice comes out as it went in (extra fields stripped by its subject's schema)
    if ('data' in ours)
      expect(ours.data).toMatchObject({ subject: (input as typeof pipe).subject });
  });
});
