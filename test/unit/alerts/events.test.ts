import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../lib/errors';
import { alertEvent, cloudopsEvent, parseEvent } from '../../../lib/events';

const time = '2025-01-01T00:00:00Z';
const channel = { type: 'webhook', webhookId: 'w1' };
const synced = {
  source: 'cloudops',
  'detail-type': 'Dashboard Synced',
  time,
  detail: {
    dashboardKey: 'dashboards/api.yaml',
    dashboardId: 'd1',
    name: 'API',
    sourceFile: 'dashboards/api.yaml',
    syncedAt: time,
    tiles: [{ name: 'Errors', id: 't1' }],
    alerts: [
      {
        tileName: 'Errors',
        name: 'E',
        threshold: 1,
        thresholdType: 'above',
        interval: '5m',
        channel,
      },
    ],
  },
};
const requested = {
  source: 'team.x',
  'detail-type': 'Alert Provision Requested',
  time,
  detail: {
    key: 'x/1',
    alert: {
      source: 'tile',
      dashboardId: 'd1',
      tileId: 't1',
      name: 'R',
      threshold: 2,
      thresholdType: 'below',
      interval: '1h',
      channel,
    },
  },
};
const pipe = {
  source: 'cloudops',
  'detail-type': 'Pipe State Changed',
  time,
  detail: {
    organizationId: 'o',
    serviceId: 's',
    pipeId: 'p',
    pipeName: 'orders',
    from: 'Running',
    to: 'Failed',
    severity: 'critical',
    kind: 'failure',
    at: time,
  },
};

describe('event schemas', () => {
  it('accept the three documented kinds', () => {
    expect(cloudopsEvent.parse(synced)['detail-type']).toBe('Dashboard Synced');
    expect(cloudopsEvent.parse(requested)['detail-type']).toBe('Alert Provision Requested');
    expect(cloudopsEvent.parse(pipe)['detail-type']).toBe('Pipe State Changed');
    expect(alertEvent.safeParse(pipe).success).toBe(false);
  });

  it('name the event and the field of a bad record', () => {
    const bad = {
      ...requested,
      detail: { ...requested.detail, alert: { ...requested.detail.alert, tileId: undefined } },
    };
    const error = (() => {
      try {
        parseEvent(alertEvent, JSON.stringify(bad), 'msg-9');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toBe(
      'event msg-9 is invalid: detail.alert.tileId: required when source is tile',
    );
    expect(() => parseEvent(alertEvent, '{', 'msg-1')).toThrow(/^event msg-1: body is not JSON/);
    expect(() => parseEvent(alertEvent, { ...synced, time: 'yesterday' }, 'm')).toThrow(
      /event m is invalid: time: /,
    );
    expect(() =>
      parseEvent(
        alertEvent,
        {
          ...synced,
          detail: { ...synced.detail, alerts: [{ ...synced.detail.alerts[0], interval: '2m' }] },
        },
        'm',
      ),
    ).toThrow(/detail\.alerts\[0\]\.interval: /);
  });

  it('name a kind they do not take by its detail-type, and a record that is no object as such', () => {
    const reasons = (schema: typeof alertEvent | typeof cloudopsEvent, value: unknown) => {
      try {
        parseEvent(schema, value, 'm');
      } catch (e) {
        return (e as Error).message;
      }
      return 'accepted';
    };
    expect(reasons(alertEvent, pipe)).toBe(
      "event m is invalid: detail-type: Invalid discriminator value. Expected 'Dashboard Synced' | 'Alert Provision Requested'",
    );
    expect(reasons(cloudopsEvent, { ...pipe, 'detail-type': 'Nope' })).toBe(
      "event m is invalid: detail-type: Invalid discriminator value. Expected 'Dashboard Synced' | 'Alert Provision Requested' | 'Pipe State Changed'",
    );
    expect(reasons(alertEvent, { source: 'x' })).toMatch(
      /detail-type: Invalid discriminator value/,
    );
    expect(reasons(alertEvent, [])).toBe(
      'event m is invalid: (root): Invalid input: expected object, received array',
    );
    expect(reasons(alertEvent, null)).toBe(
      'event m is invalid: (root): Invalid input: expected object, received null',
    );
  });

  it('keep the fields a later producer adds, and give back what they parsed', () => {
    const extra = { ...requested, region: 'eu-west-1', detail: { ...requested.detail, by: 'ci' } };
    const parsed = alertEvent.parse(extra);
    expect(parsed).toEqual(extra);
    expect(parsed).not.toBe(extra);
    const result = alertEvent.safeParse({ ...synced, detail: { ...synced.detail, tiles: 'x' } });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['detail.tiles', 'Invalid input: expected array, received string'],
    ]);
  });
});
