/**
 * What the deployed sync's manifest says of the kinds beside dashboards: a kind is listed to be
 * pruned only while a run may have left owned objects of it, and is never forgotten unseen.
 */
import { describe, expect, it } from 'vitest';
import {
  kindsAfter,
  kindsToList,
  manifestChanged,
  nextManifest,
  type KindSeen,
} from '../../../lib/dashboards/manifest';

const none: KindSeen = { declared: false, listed: false, left: false };
const seen = (webhook: Partial<KindSeen>, savedSearch: Partial<KindSeen> = {}) => ({
  webhook: { ...none, ...webhook },
  savedSearch: { ...none, ...savedSearch },
});

describe('the kinds a manifest records', () => {
  it('a declared kind, or one listed with an owned object left, is kept; one listed and clean is dropped', () => {
    expect(kindsAfter(undefined, seen({ declared: true, listed: true }, { listed: true }))).toEqual(
      ['webhook'],
    );
    expect(kindsAfter(['webhook'], seen({ listed: true, left: true }, { listed: true }))).toEqual([
      'webhook',
    ]);
    expect(
      kindsAfter(['webhook', 'savedSearch'], seen({ listed: true }, { listed: true })),
    ).toEqual([]);
  });

  it('a kind not listed keeps what the last manifest said, and is unknown without one', () => {
    expect(kindsAfter(['savedSearch'], seen({ listed: true }))).toEqual(['savedSearch']);
    expect(kindsAfter([], seen({ listed: true }))).toEqual([]);
    expect(kindsAfter(undefined, seen({ listed: true }))).toBeUndefined();
  });

  it('lists every kind without a manifest (or one from before kinds), only the recorded ones with it', () => {
    const base = nextManifest('ctx', [], [], new Map());
    expect(kindsToList(undefined)).toEqual(['webhook', 'savedSearch']);
    expect(kindsToList(base)).toEqual(['webhook', 'savedSearch']);
    expect(kindsToList(nextManifest('ctx', [], [], new Map(), []))).toEqual([]);
    expect(kindsToList(nextManifest('ctx', [], [], new Map(), ['webhook']))).toEqual(['webhook']);
  });

  it('a change of the recorded kinds is worth writing; the same kinds are not', () => {
    const before = nextManifest('ctx', [], [], new Map(), ['webhook']);
    expect(manifestChanged(before, nextManifest('ctx', [], [], new Map(), ['webhook']))).toBe(
      false,
    );
    expect(manifestChanged(before, nextManifest('ctx', [], [], new Map(), []))).toBe(true);
    expect(manifestChanged(before, nextManifest('ctx', [], [], new Map()))).toBe(true);
  });
});
