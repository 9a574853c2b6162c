import * as z from 'zod';

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** "90d", "36h", "15m", "30s", "500ms" -> milliseconds (a positive whole amount). */
export const duration = z
  .string()
  .regex(/^\d+(ms|s|m|h|d)$/, 'expected a duration such as 90d, 12h, 30m, 45s or 500ms')
  .transform((text) => {
    const [, amount, unit] = /^(\d+)(ms|s|m|h|d)$/.exec(text) as unknown as [
      string,
      string,
      keyof typeof UNIT_MS,
    ];
    return Number(amount) * UNIT_MS[unit];
  })
  .refine((ms) => ms > 0, 'expected a duration greater than zero');
