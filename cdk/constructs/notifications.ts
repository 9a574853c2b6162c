/**
 * Where people hear about things: one KMS-encrypted SNS topic (watchdog notices, key-expiry
 * warnings and every alarm), plus the optional Slack and webhook destinations, whose URLs live
 * in secrets the deployer creates beforehand (see cdk/README.md).
 */
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import type { EnvOf } from '../../lib/config';
import type { watchdogEnv } from '../../lib/pipes/config';

interface NotificationsProps {
  /** Existing secret `{ "url": "https://hooks.slack.com/..." }`. */
  readonly slackWebhookSecretName?: string | undefined;
  /** Existing secret `{ "url": "https://...", "signingSecret": "<16+ chars>" }`. */
  readonly webhookSecretName?: string | undefined;
}

export class Notifications extends Construct {
  readonly key: kms.Key;
  readonly topic: sns.Topic;
  readonly slackWebhookSecret?: secretsmanager.ISecret;
  readonly webhookSecret?: secretsmanager.ISecret;

  /**
   * Env naming the Slack / webhook secrets: the watchdog reads them at run time, so their
   * values are never resolved into the template or the Lambda environment.
   */
  destinationEnv(): EnvOf<typeof watchdogEnv> {
    return {
      ...(this.slackWebhookSecret
        ? { CLOUDOPS_WATCHDOG_SLACK_SECRET_ID: this.slackWebhookSecret.secretName }
        : {}),
      ...(this.webhookSecret
        ? { CLOUDOPS_WATCHDOG_WEBHOOK_SECRET_ID: this.webhookSecret.secretName }
        : {}),
    };
  }

  grantReadDestinations(grantee: iam.IGrantable): void {
    this.slackWebhookSecret?.grantRead(grantee);
    this.webhookSecret?.grantRead(grantee);
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
    if (props.slackWebhookSecretName) {
      this.slackWebhookSecret = secretsmanager.Secret.fromSecretNameV2(
        this,
        'SlackWebhookSecret',
        props.slackWebhookSecretName,
      );
    }
    if (props.webhookSecretName) {
      this.webhookSecret = secretsmanager.Secret.fromSecretNameV2(
        this,
        'WebhookSecret',
        props.webhookSecretName,
      );
    }
  }
}
