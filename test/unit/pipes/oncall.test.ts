/** What the on-call commands decide before calling (API-FACTS "Pipes"), table by table. */
import { describe, expect, it } from 'vitest';
import { checkCommand } from '../../../lib/pipes/oncall';

describe('checkCommand', () => {
  it.each([
    ['start', 'Running', 'kafka', 'done', 'already running'],
    ['start', 'Stopped', 'kafka', 'call', undefined],
    ['start', 'Failed', 'kafka', 'call', undefined],
    [
      'start',
      'Provisioning',
      'kafka',
      'refused',
      /only from Stopped or Failed; this one is Provisioning/,
    ],
    ['start', 'Degraded', 'kafka', 'refused', /this one is Degraded/],
    ['stop', 'Stopped', 'kafka', 'done', 'already stopped'],
    ['stop', 'Stopping', 'kafka', 'done', 'already stopping'],
    ['stop', 'Running', 'kafka', 'call', undefined],
    ['stop', 'Failed', 'kafka', 'call', undefined],
    ['resync', 'Running', 'postgres', 'call', undefined],
    ['resync', 'Stopped', 'mysql', 'call', undefined],
    [
      'resync',
      'Running',
      'mongodb',
      'refused',
      /postgres and mysql pipes only; this one reads from mongodb/,
    ],
    ['resync', 'Running', 'kafka', 'refused', /this one reads from kafka/],
    ['resync', 'Running', undefined, 'refused', /from an unknown source/],
  ] as const)('%s on a %s %s pipe: %s', (command, state, sourceKind, kind, message) => {
    const check = checkCommand(command, { state, sourceKind });
    expect(check.kind).toBe(kind);
    if (message === undefined) expect(check).not.toHaveProperty('message');
    else if (typeof message === 'string') expect(check).toMatchObject({ message });
    else expect((check as { message: string }).message).toMatch(message);
  });
});
