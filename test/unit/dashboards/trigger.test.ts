import { describe, expect, it } from 'vitest';
import { classifyTrigger, normalizePrefix } from '../../../lib/dashboards/trigger';

describe('classifyTrigger', () => {
  it('reads S3 notifications (URL-encoded keys) and EventBridge S3 events under the prefix', () => {
    const record = (bucket: string, key: string) => ({
      eventSource: 'aws:s3',
      s3: { bucket: { name: bucket }, object: { key } },
    });
    expect(
      classifyTrigger(
        { Records: [record('b', 'dash/my+team%2Fx.yaml'), record('other', 'dash/y.yaml')] },
        'b',
        'dash',
      ),
    ).toEqual({
      kind: 'files-changed',
      keys: ['dash/my team/x.yaml'],
    });
    expect(classifyTrigger({ Records: [record('b', 'elsewhere/x.yaml')] }, 'b', 'dash/').kind).toBe(
      'ignored',
    );
    expect(
      classifyTrigger(
        { source: 'aws.s3', detail: { bucket: { name: 'b' }, object: { key: 'dash/a.json' } } },
        'b',
        '/dash/',
      ),
    ).toEqual({ kind: 'files-changed', keys: ['dash/a.json'] });
    expect(
      classifyTrigger({ source: 'aws.events', 'detail-type': 'Scheduled Event' }, 'b', 'dash').kind,
    ).toBe('schedule');
    expect(classifyTrigger({ hello: 1 }, 'b', 'dash').kind).toBe('ignored');
    expect(classifyTrigger(undefined, 'b', 'dash').kind).toBe('ignored');
  });

  it('normalises prefixes', () => {
    expect(normalizePrefix('dash')).toBe('dash/');
    expect(normalizePrefix('/dash/')).toBe('dash/');
    expect(normalizePrefix('')).toBe('');
  });
});
