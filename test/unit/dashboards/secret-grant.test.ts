/**
 * Which webhook-file references the deployed sync's grant covers: as IAM matches a grant by
 * name (any version suffix) or by ARN (that secret), so the function refuses exactly what its
 * stack did not grant for webhooks.
 */
import { describe, expect, it } from 'vitest';
import { grantCovers } from '../../../lib/dashboards/secret-reference';

const HEAD = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:';

describe('grantCovers', () => {
  it('a name grant covers the name and its ARNs, with or without the suffix', () => {
    expect(grantCovers('team/pager', 'team/pager')).toBe(true);
    expect(grantCovers('team/pager', `${HEAD}team/pager-AbC123`)).toBe(true);
    expect(grantCovers('team/pager', `${HEAD}team/pager`)).toBe(true);
  });

  it('an ARN grant covers that ARN, its partial form and its name', () => {
    const complete = `${HEAD}team/pager-AbC123`;
    expect(grantCovers(complete, complete)).toBe(true);
    expect(grantCovers(complete, `${HEAD}team/pager`)).toBe(true);
    expect(grantCovers(complete, 'team/pager')).toBe(true);
    expect(grantCovers(`${HEAD}team/pager`, complete)).toBe(true);
  });

  it('covers no other secret: another name, a prefix, another account or version', () => {
    expect(grantCovers('team/pager', 'cloudops/sandbox/management-key')).toBe(false);
    expect(grantCovers('team/pager', 'team/pager-url')).toBe(false);
    expect(grantCovers('team/pager', 'team/pag')).toBe(false);
    expect(grantCovers('team', 'team/pager')).toBe(false);
    expect(
      grantCovers(
        `${HEAD}team/pager-AbC123`,
        `${HEAD.replace('123456789012', '999999999999')}team/pager-AbC123`,
      ),
    ).toBe(false);
    expect(grantCovers(`${HEAD}team/pager-AbC123`, `${HEAD}team/pager-XyZ789`)).toBe(false);
    // A name that happens to end like a suffix is that name, not a version of a shorter one.
    expect(grantCovers('team/pager-AbC123', 'team/pager')).toBe(false);
  });
});
