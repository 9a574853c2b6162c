/**
 * Putting events on the cloudops bus: each role may put only its own detail-types, under the
 * source this stack's emitters share (IAM condition keys `events:source`, `events:detail-type`),
 * so no function can forge another's events (a `Dashboard Synced` from the watchdog, say).
 */
import type * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import { EVENT_SOURCE } from '../../lib/events/schemas';

export function grantPutOwnEvents(
  bus: events.IEventBus,
  grantee: iam.IGrantable,
  detailTypes: readonly string[],
): void {
  grantee.grantPrincipal.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: ['events:PutEvents'],
      resources: [bus.eventBusArn],
      conditions: {
        StringEquals: { 'events:source': [EVENT_SOURCE], 'events:detail-type': [...detailTypes] },
      },
    }),
  );
}
