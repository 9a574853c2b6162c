import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatMarker,
  ownerId,
  parseMarker,
  stripMarker,
  withMarker,
  type AlertOwner,
  type Marker,
} from '../../../lib/alerts/marker';

const at = '2025-01-01T00:00:01.000Z';

describe('alert marker', () => {
  it('round-trips any owner through a message, whatever the names contain', () => {
    const text = fc.string({ minLength: 1 });
    const owner: fc.Arbitrary<AlertOwner> = fc.oneof(
      fc.record({
        kind: fc.constant('dashboard' as const),
        dashboardKey: text,
        tileName: text,
        alertName: text,
      }),
      fc.record({ kind: fc.constant('request' as const), key: text }),
    );
    fc.assert(
      fc.property(owner, fc.string(), (o, message) => {
        const marker: Marker = { owner: o, version: at };
        const written = withMarker(message, marker);
        expect(parseMarker(written)).toEqual(marker);
        // Re-marking replaces the marker, never stacks a second one.
        const again = withMarker(written, { owner: o, version: '2025-01-02T00:00:00.000Z' });
        expect(again.match(/\[cloudops:/g)).toHaveLength(1);
        expect(stripMarker(again)).toBe(stripMarker(written));
      }),
    );
  });

  it('keeps the user text first and the marker as the last line', () => {
    const owner: AlertOwner = {
      kind: 'dashboard',
      dashboardKey: 'a/b.yaml',
      tileName: 'Errors',
      alertName: 'High rate',
    };
    expect(withMarker('Page the on-call', { owner, version: at })).toBe(
      `Page the on-call\n[cloudops:d/a%2Fb.yaml/Errors/High%20rate@${at}]`,
    );
    expect(withMarker(undefined, { owner: { kind: 'request', key: 'k' }, version: at })).toBe(
      `[cloudops:r/k@${at}]`,
    );
    expect(ownerId({ kind: 'request', key: 'x/y' })).toBe('r/x%2Fy');
    expect(formatMarker({ owner: { kind: 'request', key: 'k' }, version: at })).toBe(
      `[cloudops:r/k@${at}]`,
    );
  });

  it('treats hand-made and damaged markers as no marker', () => {
    for (const message of [
      null,
      undefined,
      '',
      'written by hand',
      'see [cloudops: docs]',
      '[cloudops:d/a/b@2025-01-01T00:00:00Z]', // two parts
      '[cloudops:r/k@not-a-time]',
      '[cloudops:x/k@2025-01-01T00:00:00Z]',
      '[cloudops:r/%E0%A4%A@2025-01-01T00:00:00Z]', // bad escape
      `[cloudops:r/k@${at}] and then more text`,
    ]) {
      expect(parseMarker(message), String(message)).toBeUndefined();
    }
  });
});
