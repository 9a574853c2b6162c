import * as z from 'zod/mini';

/**
 * A service's pipe list as the rotation's test call reads it: that the new key may list pipes
 * is all it proves, so only the rule a full pipe record enforces (a non-empty `id`) is checked;
 * every other field passes unread (lib/schemas/pipe.ts reads them as lenient anyway).
 */
export const pipeProbeList = z.lazy(() =>
  z.array(z.looseObject({ id: z.string().check(z.minLength(1)) })),
);
export type PipeProbeItem = z.output<typeof pipeProbeList>[number];
