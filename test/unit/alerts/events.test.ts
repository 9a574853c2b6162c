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
});
