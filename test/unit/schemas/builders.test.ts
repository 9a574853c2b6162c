import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { coercedNumber, isoDatetime, withFallback } from '../../../lib/schemas/builders';

/** What a user sees of a parse: the value, or each issue's path, code and message. */
function outcome(schema: z.ZodMiniType, input: unknown) {
  const result = schema.safeParse(input);
  return result.success
    ? { data: result.data }
    : { issues: result.error.issues.map(({ path, code, message }) => ({ path, code, message })) };
}

describe('the lean builders parse as the zod/mini builders they stand for', () => {
  it.each([
    '2026-11-26T15:00:00Z',
    '2026-11-26T15:00:00.123+02:00',
    '2026-11-26T15:00:00',
    '2026-11-26',
    'yesterday',
    '',
    42,
    null,
  ])('isoDatetime({ offset: true }) like z.iso.datetime on %j', (input) => {
    expect(outcome(isoDatetime({ offset: true }), input)).toEqual(
      outcome(z.iso.datetime({ offset: true }), input),
    );
  });

  it.each(['42', ' 7 ', '1e3', '', 'ten', '0x10', 3.5, true, null, undefined])(
    'coercedNumber() with checks like z.coerce.number() on %j',
    (input) => {
      const lean = coercedNumber().check(z.int(), z.positive());
      const zods = z.coerce.number().check(z.int(), z.positive());
      expect(outcome(lean, input)).toEqual(outcome(zods, input));
    },
  );

  it.each([{ a: 'x' }, { a: 3 }, {}, null, 'text', [1]])(
    'withFallback(schema, value) like z.catch(schema, value) on %j',
    (input) => {
      const inner = () => z.optional(z.looseObject({ a: z.string() }));
      expect(outcome(withFallback(inner(), undefined), input)).toEqual(
        outcome(z.catch(inner(), undefined), input),
      );
      expect(outcome(withFallback(z.array(z.number()), []), input)).toEqual(
        outcome(z.catch(z.array(z.number()), []), input),
      );
    },
  );

  it('withFallback keeps what parses and gives the fallback for what does not', () => {
    const tolerant = z.object({ n: withFallback(z.number(), -1) });
    expect(tolerant.parse({ n: 5 })).toEqual({ n: 5 });
    expect(tolerant.parse({ n: 'five' })).toEqual({ n: -1 });
  });
});
