/** The one cloudops stack: one construct per concern, wired together here. */
import { Annotations, CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { DEFAULT_OWNER } from '../lib/dashboards/ownership';
import { dashboardsOwnerFor, dashboardVarsEnv, rateMinutes, type StackConfig } from './config';
import { AlertProvisioning } from './constructs/alert-provisioning';
import type { ConnectionSettings } from './constructs/connection';
import { DashboardSync } from './constructs/dashboard-sync';
import { KeyRotation } from './constructs/key-rotation';
import { Monitoring } from './constructs/monitoring';
import { acknowledgeCdkInternals } from './constructs/nag';
import { Notifications } from './constructs/notifications';
import { PipeWatchdog } from './constructs/pipe-watchdog';
import { deadLetterQueue } from './constructs/queues';
import { CredentialSecrets, type KeyUser } from './constructs/secrets';

interface CloudOpsStackProps extends StackProps {
  readonly config: StackConfig;
}

export class CloudOpsStack extends Stack {
  readonly secrets: CredentialSecrets;
  readonly notifications: Notifications;
  readonly bus: events.EventBus;
  readonly keyRotation: KeyRotation;
  readonly dashboardSync: DashboardSync;
  readonly alertProvisioning: AlertProvisioning;
  readonly pipeWatchdog: PipeWatchdog;
  readonly monitoring: Monitoring;
  /** CLOUDOPS_DASHBOARDS_OWNER of this deployment. */
  readonly dashboardsOwner: string;

  constructor(scope: Construct, id: string, props: CloudOpsStackProps) {
    super(scope, id, props);
    const { config } = props;
    const logRetention = config.logRetentionDays as logs.RetentionDays;
    const logLevel = config.logLevel;
    const managed = config.observabilityMode === 'managed';

    // One key per function that calls the management API; open-source mode reaches
    // dashboards and alerts with the tokens alone.
    const keyUsers: KeyUser[] = managed ? ['sync', 'alerts', 'watchdog'] : ['watchdog'];
    this.secrets = new CredentialSecrets(this, 'Secrets', {
      keyUsers,
      adminSecret: config.adminSecret,
    });
    this.bus = new events.EventBus(this, 'Bus', {
      description:
        'cloudops events: Dashboard Synced, Alert Provision Requested, Pipe State Changed',
    });
    this.notifications = new Notifications(this, 'Notifications', {
      bus: this.bus,
      secretNames: config.notifierSecretNames,
      routes: config.watchdogRoutes,
    });
    const scheduleDeadLetterQueue = deadLetterQueue(
      this,
      'ScheduleDeadLetterQueue',
      'the schedules',
    );
    const eventsDeadLetterQueue = deadLetterQueue(this, 'EventsDeadLetterQueue', 'the event rules');

    const connection: ConnectionSettings = {
      apiUrl: config.apiUrl,
      observabilityUrl: config.observabilityUrl,
      observabilityMode: config.observabilityMode,
      organizationId: config.organizationId,
      serviceIds: config.serviceIds,
    };
    const common = { logRetention, logLevel };
    const { keys, tokens } = this.secrets;
    this.dashboardsOwner = config.dashboardsOwner ?? dashboardsOwnerFor(this.stackName);
    if (this.dashboardsOwner === DEFAULT_OWNER)
      // Every deployment and CLI user left on "default" owns the same dashboards: with prune,
      // each deletes the others'.
      Annotations.of(this).addWarningV2(
        'cloudops:dashboards-default-owner',
        `cloudops:dashboardsOwner is "${DEFAULT_OWNER}", the owner every other deployment and CLI user gets unless they set one: with prune they delete each other's dashboards. Leave it unset (the stack name is used) or give this deployment its own.`,
      );

    this.keyRotation = new KeyRotation(this, 'KeyRotation', {
      ...common,
      secrets: this.secrets,
      apiUrl: config.apiUrl,
      rotationDays: config.rotationDays,
      keyLifetimeMs: config.keyLifetimeMs,
      keyGracePeriodMs: config.keyGracePeriodMs,
      keyExpiryWarnDays: config.keyExpiryWarnDays,
      sentinelSchedule: config.keySentinelSchedule,
      notifications: this.notifications,
      scheduleDeadLetterQueue,
    });
    this.dashboardSync = new DashboardSync(this, 'DashboardSync', {
      ...common,
      connection,
      credentials: { managementKey: keys.sync, observabilityToken: tokens.sync },
      owner: this.dashboardsOwner,
      reserveConcurrency: config.reservedConcurrency,
      bus: this.bus,
      schedule: config.driftSyncSchedule,
      scheduleMode: config.dashboardsScheduleMode,
      prune: config.dashboardsPrune,
      scheduleDeadLetterQueue,
      prefix: config.dashboardsPrefix,
      folder: config.dashboardsDir,
      varsEnv: dashboardVarsEnv(config.dashboardVars),
      webhookSecrets: config.dashboardWebhookSecrets,
      eventsDeadLetterQueue,
      notifications: this.notifications,
    });
    this.alertProvisioning = new AlertProvisioning(this, 'AlertProvisioning', {
      ...common,
      connection,
      credentials: { managementKey: keys.alerts, observabilityToken: tokens.alerts },
      bus: this.bus,
      requestSources: config.alertRequestSources,
      eventsDeadLetterQueue,
    });
    this.pipeWatchdog = new PipeWatchdog(this, 'PipeWatchdog', {
      ...common,
      connection,
      managementKey: keys.watchdog!,
      reserveConcurrency: config.reservedConcurrency,
      notifications: this.notifications,
      schedule: config.watchdogSchedule,
      scheduleDeadLetterQueue,
      tuning: config.watchdogTuning,
    });

    this.dashboardSync.readAlertVersions(this.alertProvisioning.versionTable);
    this.keyRotation.keepFindingsIn(this.pipeWatchdog.table);
    this.dashboardSync.tellDrift({ table: this.pipeWatchdog.table });

    const functions = {
      RotateKey: this.keyRotation.rotator,
      KeySentinel: this.keyRotation.sentinel,
      SyncDashboards: this.dashboardSync.sync,
      ProvisionAlerts: this.alertProvisioning.provision,
      PipeWatchdog: this.pipeWatchdog.watchdog,
      PipeWatchdogConsumer: this.pipeWatchdog.consumer,
    };
    this.monitoring = new Monitoring(this, 'Monitoring', {
      topic: this.notifications.topic,
      functions,
      rotator: this.keyRotation.rotator,
      sync: this.dashboardSync.sync,
      watchdog: this.pipeWatchdog.watchdog,
      watchdogEveryMinutes: rateMinutes(config.watchdogSchedule),
      workQueues: {
        AlertQueue: this.alertProvisioning.queue,
        WatchdogQueue: this.pipeWatchdog.queue,
      },
      deadLetterQueues: {
        Schedules: scheduleDeadLetterQueue,
        EventRules: eventsDeadLetterQueue,
        AlertQueue: this.alertProvisioning.queueDeadLetterQueue,
        WatchdogQueue: this.pipeWatchdog.queueDeadLetterQueue,
        ...Object.fromEntries(
          Object.entries(functions).map(([name, f]) => [`${name}Async`, f.deadLetterQueue]),
        ),
      },
    });

    // What the deployer seeds (cdk/README.md): the generated names, unique per stack.
    for (const secret of [
      ...this.secrets.allKeys(),
      tokens.sync,
      tokens.alerts,
      ...(this.secrets.admin ? [this.secrets.admin] : []),
    ]) {
      new CfnOutput(this, `${secret.node.id}SecretArn`, {
        value: secret.secretArn,
        description: `Seed with put-secret-value: ${secret.node.id}`,
      });
    }
    new CfnOutput(this, 'NotificationsTopicArn', {
      value: this.notifications.topic.topicArn,
      description: 'Subscribe people to this topic: alarms, watchdog notices, key-expiry warnings',
    });
    new CfnOutput(this, 'DashboardsOwner', { value: this.dashboardsOwner });
    new CfnOutput(this, 'DashboardsBucketName', {
      value: this.dashboardSync.bucket.bucketName,
      description: `Dashboard files go under ${config.dashboardsPrefix} in this bucket (cdk/README.md)`,
    });
    acknowledgeCdkInternals(this);
  }
}
