/**
 * The August 2026 alert fields in the alert engine: what a tile alert's body sends (a PUT
 * replaces per field), and how the plan compares a declaration with what the service answers
 * (unset and the service's "unset" answers are no drift; a set field is a change; state shows).
 */
import { describe, expect, it } from 'vitest';
import {
  bodyOfAlert,
  desiredFromEvent,
  markedBody,
  planTileAlerts,
  tileAlert,
  type TileAlertDeclaration,
} from '../../../lib/alerts';
import { alertEvent } from '../../../lib/events';
import { alert, createAlertBody, type Alert } from '../../../lib/schemas';

const link = { dashboardId: 'd1', tileId: 't1' };
const declared: TileAlertDeclaration = {
  name: 'errors',
  threshold: 10,
  thresholdType: 'above',
  interval: '15m',
  channel: { type: 'webhook', webhookId: 'w1' },
};

/** The body as cloudops writes it, read back as the service answers it (plus `extra`). */
function onService(want: TileAlertDeclaration, extra: Record<string, unknown> = {}): Alert {
  const d = tileAlert('team/a', 'rate', link, want);
  const { scheduleStartAt, ...body } = markedBody(d, '2026-08-01T00:00:00.000Z');
  return alert.parse({
    id: 'a1',
    ...body,
    ...(scheduleStartAt ? { scheduleStartAt } : {}),
    state: 'OK',
    ...extra,
  });
}

function plan(want: TileAlertDeclaration, have: Alert) {
  return planTileAlerts({
    holder: { kind: 'dashboard', dashboardKey: 'team/a' },
    tiles: [{ identity: 'rate', name: 'Error rate', id: 't1', alerts: [want] }],
    onDashboard: [have],
    tileNames: new Map([['t1', 'Error rate']]),
    adopt: false,
  });
}

describe('tile alert bodies with the August 2026 fields', () => {
  it('sends every set field; with no schedule, scheduleStartAt null clears an earlier one', () => {
    const body = (w: Partial<TileAlertDeclaration>) =>
      tileAlert('team/a', 'rate', link, { ...declared, ...w }).body;
    expect(body({})).toMatchObject({ scheduleStartAt: null });
    expect(body({})).not.toHaveProperty('numConsecutiveWindows');
    expect(body({ numConsecutiveWindows: 3, scheduleOffsetMinutes: 5 })).toEqual(
      expect.objectContaining({ numConsecutiveWindows: 3, scheduleOffsetMinutes: 5 }),
    );
    expect(body({ scheduleOffsetMinutes: 5 })).not.toHaveProperty('scheduleStartAt');
    const start = body({ scheduleStartAt: '2026-09-01T06:00:00Z' });
    expect(start).toMatchObject({ scheduleStartAt: '2026-09-01T06:00:00Z' });
    expect(start).not.toHaveProperty('scheduleOffsetMinutes');
    const email = { type: 'email', emailRecipients: ['a@example.com'] };
    const withEmail = body({ channel: email });
    expect(withEmail.channel).toEqual(email);
    expect(createAlertBody.safeParse(withEmail).success).toBe(true);
  });

  it('a Dashboard Synced event carries them to the alert function, which sends them', () => {
    const time = '2026-08-01T00:00:00Z';
    const event = alertEvent.parse({
      source: 'cloudops',
      'detail-type': 'Dashboard Synced',
      time,
      detail: {
        dashboardKey: 'team/a',
        dashboardId: 'd1',
        name: 'A',
        sourceFile: 'a.yaml',
        syncedAt: time,
        tiles: [{ name: 'rate', id: 't1' }],
        alerts: [
          {
            ...declared,
            tileName: 'rate',
            numConsecutiveWindows: 2,
            scheduleOffsetMinutes: 5,
            channel: { type: 'email', emailRecipients: ['a@example.com'] },
          },
        ],
      },
    });
    expect(desiredFromEvent(event).alerts[0].body).toMatchObject({
      numConsecutiveWindows: 2,
      scheduleOffsetMinutes: 5,
      channel: { type: 'email', emailRecipients: ['a@example.com'] },
    });
  });

  it('a body rebuilt from an alert read back keeps the new fields and the email channel', () => {
    const want = {
      ...declared,
      numConsecutiveWindows: 2,
      scheduleStartAt: '2026-09-01T06:00:00Z',
      channel: { type: 'email', emailRecipients: ['a@example.com', 'b@example.com'] },
    };
    expect(bodyOfAlert(onService(want))).toMatchObject({
      numConsecutiveWindows: 2,
      scheduleStartAt: '2026-09-01T06:00:00.000Z',
      channel: { type: 'email', emailRecipients: ['a@example.com', 'b@example.com'] },
    });
  });
});

describe('planning tile alerts with the August 2026 fields', () => {
  it("unset fields and the service's answers for unset are no change", () => {
    // The management API: numConsecutiveWindows null, offset 0 after `scheduleStartAt: null`,
    // a webhook channel carrying its service; /api/v2 may answer 1 window and `channels`.
    for (const extra of [
      {
        numConsecutiveWindows: null,
        scheduleOffsetMinutes: 0,
        channel: { type: 'webhook', webhookId: 'w1', webhookService: 'slack', severity: null },
      },
      { numConsecutiveWindows: 1, channels: [{ type: 'webhook', webhookId: 'w1' }] },
    ])
      expect(plan(declared, onService(declared, extra))).toEqual([]);
    const start = {
      ...declared,
      interval: '1h' as const,
      scheduleStartAt: '2026-09-01T08:00:00+02:00',
    };
    expect(plan(start, onService(start, { scheduleStartAt: '2026-09-01T06:00:00.000Z' }))).toEqual(
      [],
    );
  });

  it('a changed field is an update showing old -> new, with the alert state (PENDING too)', () => {
    const want = {
      ...declared,
      numConsecutiveWindows: 2,
      scheduleOffsetMinutes: 5,
      channel: { type: 'email', emailRecipients: ['a@example.com'] },
    };
    const have = onService(
      {
        ...declared,
        numConsecutiveWindows: 3,
        channel: { type: 'email', emailRecipients: ['b@example.com'] },
      },
      { state: 'PENDING' },
    );
    const [change] = plan(want, have);
    expect(change).toMatchObject({ action: 'update', id: 'a1', state: 'PENDING', want });
    expect(change.changes).toEqual([
      { path: 'channel.emailRecipients', from: ['b@example.com'], to: ['a@example.com'] },
      { path: 'numConsecutiveWindows', from: 3, to: 2 },
      { path: 'scheduleOffsetMinutes', to: 5 },
    ]);
    // Dropping a field from the file is a change too (the PUT then clears it).
    const [dropped] = plan(declared, onService(want));
    expect(dropped.changes.map((c) => c.path)).toEqual([
      'channel.emailRecipients',
      'channel.type',
      'channel.webhookId',
      'numConsecutiveWindows',
      'scheduleOffsetMinutes',
    ]);
  });
});
