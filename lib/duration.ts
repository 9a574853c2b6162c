/** Milliseconds per duration unit: the one table settings, ages and reminders count in. */
export const UNIT_MS = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000, ms: 1 } as const;
