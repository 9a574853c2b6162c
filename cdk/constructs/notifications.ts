/**
 * Where people hear about things, one destination per notifier of lib/watch's registry: one
 * KMS-encrypted SNS topic (every notice and every alarm), the cloudops event bus, and each
 * notifier that reads a secret (Slack, the webhook, PagerDuty) whose secret the deployer created
 * beforehand (see cdk/README.md), plus the routing table's own destinations. `bind` gives a
 * function exactly the destinations it notifies through: their env and their grants, nothing
 * else.
 */
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import type { EnvOf } from '../../lib/config';
import { grantPutOwnEvents } from './events';
import { NOTIFIERS, type notifierEnv, type NotifierName } from '../../lib/watch/notifiers/registry';
import { destinationName, type RouteTable } from '../../lib/watch/routes';
import { bundleDefinesLeaving, type LeavablePart } from '../../lib/watch/notifiers/bundle-switches';

/** The notifiers a bundle may leave out (SNS and EventBridge are always bound). */
const LEAVABLE_NOTIFIERS = ['slack', 'webhook', 'pagerduty'] as const satisfies LeavablePart[];

export interface NotificationsProps {
  /** The cloudops bus (the EventBridge notifier's destination). */
  readonly bus: events.IEventBus;
  /**
   * Existing secrets of the notifiers that read one, by notifier: Slack
   * `{ "url": "https://hooks.slack.com/..." }`, webhook `{ "url", "signingSecret"? }`,
   * PagerDuty `{ "routingKey" }`. A notifier with no secret named here is not configured.
   */
  readonly secretNames?: Partial<Record<NotifierName, string | undefined>>;
  /**
   * Routing per team (lib/watch/routes.ts, checked by cdk/config.ts): set on every function
   * bound to all notifiers, with read on exactly the secrets its routes name.
   */
  readonly routes?: RouteTable | undefined;
}

/** One notifier's destination: the env that configures it and the grant it needs. */
interface Destination {
  readonly notifier: NotifierName;
  readonly env: EnvOf<typeof notifierEnv>;
  grant(grantee: iam.IGrantable, detailTypes: readonly string[]): void;
}

interface BindOptions {
  /** Only these notifiers (default: every configured one). */
  readonly only?: readonly NotifierName[];
  /** The detail-types the function's notices are put on the bus as: the only ones it may put. */
  readonly detailTypes?: readonly string[];
}

export class Notifications extends Construct {
  readonly key: kms.Key;
  readonly topic: sns.Topic;
  /** The configured destinations, in the registry's order. */
  private readonly destinations: Destination[];
  /** The routing table's env and its own destinations' secrets (none without a table). */
  private readonly routing: { env: Record<string, string>; secrets: secretsmanager.ISecret[] };

  /**
   * Notify through `only` these notifiers (default: every configured one). Secrets are named
   * in env and read at run time, so their values never reach the template or the environment.
   */
  bind(fn: lambda.Function, { only, detailTypes = [] }: BindOptions = {}): void {
    for (const d of this.destinations) {
      if (only && !only.includes(d.notifier)) continue;
      for (const [name, value] of Object.entries(d.env)) if (value) fn.addEnvironment(name, value);
      d.grant(fn, detailTypes);
    }
    // Routes name the notifiers above: a function given only some of them routes nothing.
    if (only) return;
    for (const [name, value] of Object.entries(this.routing.env)) fn.addEnvironment(name, value);
    for (const secret of this.routing.secrets) secret.grantRead(fn);
  }

  /**
   * The esbuild `define` of a function bound with the same options: its bundle leaves out each
   * notifier `bind` gives it no destination for, and routing without a table
   * (lib/watch/notifiers/bundle-switches.ts). With a table it keeps them all: a route may name
   * any notifier.
   */
  bundleDefines({ only }: Pick<BindOptions, 'only'> = {}): Record<string, string> {
    const routes = !only && Object.keys(this.routing.env).length > 0;
    if (routes) return bundleDefinesLeaving([]);
    const bound = this.destinations
      .filter((d) => !only || only.includes(d.notifier))
      .map((d) => d.notifier);
    const leftOut = LEAVABLE_NOTIFIERS.filter((notifier) => !bound.includes(notifier));
    return bundleDefinesLeaving([...leftOut, 'routes']);
  }

  /** sns:Publish on the topic and the two KMS calls publishing to an encrypted topic needs. */
  grantPublish(grantee: iam.IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['sns:Publish'], resources: [this.topic.topicArn] }),
    );
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['kms:Decrypt', 'kms:GenerateDataKey'],
        resources: [this.key.keyArn],
      }),
    );
  }

  constructor(scope: Construct, id: string, props: NotificationsProps) {
    super(scope, id);
    this.key = new kms.Key(this, 'Key', {
      description: 'cloudops notifications topic',
      enableKeyRotation: true,
      pendingWindow: Duration.days(7),
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const stack = Stack.of(this);
    // CloudWatch alarms of this account publish to the encrypted topic as the service itself.
    const fromOurAlarms = {
      StringEquals: { 'aws:SourceAccount': stack.account },
      ArnLike: {
        'aws:SourceArn': `arn:${stack.partition}:cloudwatch:${stack.region}:${stack.account}:alarm:*`,
      },
    };
    this.key.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: fromOurAlarms,
      }),
    );
    // Grants on this key only for AWS services acting for us: nobody may hand its use on.
    this.key.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'GrantsOnlyForAwsResources',
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: ['kms:CreateGrant'],
        resources: ['*'],
        conditions: {
          BoolIfExists: {
            'kms:GrantIsForAWSResource': 'false',
            'aws:PrincipalIsAWSService': 'false',
          },
        },
      }),
    );
    this.topic = new sns.Topic(this, 'Topic', {
      displayName: 'cloudops notifications',
      masterKey: this.key,
      enforceSSL: true,
    });
    // The TLS-only Deny alone allows nobody: without this, alarm actions are refused and
    // alarms reach no one. (Nothing on EventBridge targets this topic: the functions publish
    // with their own roles, granted by grantPublish.)
    this.topic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowCloudWatchAlarms',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: fromOurAlarms,
      }),
    );
    // The notifiers with a destination of their own; every other one reads a secret.
    const own: Partial<Record<NotifierName, Destination>> = {
      sns: {
        notifier: 'sns',
        env: { CLOUDOPS_WATCHDOG_SNS_TOPIC_ARN: this.topic.topicArn },
        grant: (grantee) => this.grantPublish(grantee),
      },
      eventbridge: {
        notifier: 'eventbridge',
        env: { CLOUDOPS_WATCHDOG_EVENT_BUS: props.bus.eventBusName },
        grant: (grantee, detailTypes) => {
          if (detailTypes.length === 0) {
            throw new Error(
              'the EventBridge notifier is bound only with the detail-types it may put',
            );
          }
          grantPutOwnEvents(props.bus, grantee, detailTypes);
        },
      },
    };
    this.routing = this.routesOf(props.routes);
    this.destinations = NOTIFIERS.flatMap((n): Destination[] => {
      const destination = own[n.name];
      if (destination) return [destination];
      const secretName = props.secretNames?.[n.name];
      const variable = 'secretIdVariable' in n ? n.secretIdVariable : undefined;
      if (!secretName || !variable) return [];
      const secret = secretsmanager.Secret.fromSecretNameV2(this, `${n.name}Secret`, secretName);
      return [
        {
          notifier: n.name,
          env: { [variable]: secret.secretName },
          grant: (grantee) => secret.grantRead(grantee),
        },
      ];
    });
  }

  /** The table as the functions read it, and each secret it names (by name, as Slack's). */
  private routesOf(table: RouteTable | undefined) {
    if (!table) return { env: {}, secrets: [] };
    const secrets = table.routes.flatMap((route) =>
      Object.entries(route.destinations).flatMap(([notifier, destination]) =>
        'secretId' in destination && typeof destination.secretId === 'string'
          ? [
              secretsmanager.Secret.fromSecretNameV2(
                this,
                `${destinationName(notifier, route.name)}Secret`,
                destination.secretId,
              ),
            ]
          : [],
      ),
    );
    const env: EnvOf<typeof notifierEnv> = { CLOUDOPS_WATCHDOG_ROUTES: JSON.stringify(table) };
    return { env: env as Record<string, string>, secrets };
  }
}
