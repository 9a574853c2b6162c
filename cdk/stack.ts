/** The one cloudops stack: one construct per concern, wired together here. */
import { Stack, type StackProps } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { StackConfig } from './config';
import { AlertProvisioning } from './constructs/alert-provisioning';
import type { ConnectionSettings } from './constructs/connection';
import { DashboardSync } from './constructs/dashboard-sync';
import { KeyRotation } from './constructs/key-rotation';
import { Monitoring, rateMinutes } from './constructs/monitoring';
import { acknowledgeCdkInternals } from './constructs/nag';
import { Notifications } from './constructs/notifications';
import { PipeWatchdog } from './constructs/pipe-watchdog';
import { deadLetterQueue } from './constructs/queues';
import { CredentialSecrets } from './constructs/secrets';

export interface CloudOpsStackProps extends StackProps {
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

  constructor(scope: Construct, id: string, props: CloudOpsStackProps) {
    super(scope, id, props);
    const { config } = props;
    const logRetention = config.logRetentionDays as logs.RetentionDays;
    const logLevel = config.logLevel;

    this.secrets = new CredentialSecrets(this, 'Secrets', {
      namePrefix: config.secretNamePrefix,
      adminSecret: config.adminSecret,
    });
    this.notifications = new Notifications(this, 'Notifications', {
      slackWebhookSecretName: config.slackWebhookSecretName,
      webhookSecretName: config.webhookSecretName,
    });
    this.bus = new events.EventBus(this, 'Bus', {
      description:
        'cloudops events: Dashboard Synced, Alert Provision Requested, Pipe State Changed',
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
      managementKey: this.secrets.managementKey,
      observabilityToken: this.secrets.observabilityToken,
    };
    const common = { logRetention, logLevel };

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
      bus: this.bus,
      schedule: config.driftSyncSchedule,
      scheduleMode: config.dashboardsScheduleMode,
      prune: config.dashboardsPrune,
      scheduleDeadLetterQueue,
    });
    this.alertProvisioning = new AlertProvisioning(this, 'AlertProvisioning', {
      ...common,
      connection,
      bus: this.bus,
      eventsDeadLetterQueue,
    });
    this.pipeWatchdog = new PipeWatchdog(this, 'PipeWatchdog', {
      ...common,
      connection,
      notifications: this.notifications,
      bus: this.bus,
      schedule: config.watchdogSchedule,
      scheduleDeadLetterQueue,
    });

    const functions = {
      RotateKey: this.keyRotation.rotator,
      KeySentinel: this.keyRotation.sentinel,
      SyncDashboards: this.dashboardSync.sync,
      ProvisionAlerts: this.alertProvisioning.provision,
      PipeWatchdog: this.pipeWatchdog.watchdog,
    };
    this.monitoring = new Monitoring(this, 'Monitoring', {
      topic: this.notifications.topic,
      functions,
      rotator: this.keyRotation.rotator,
      watchdog: this.pipeWatchdog.watchdog,
      watchdogEveryMinutes: rateMinutes(config.watchdogSchedule),
      deadLetterQueues: {
        Schedules: scheduleDeadLetterQueue,
        EventRules: eventsDeadLetterQueue,
        AlertQueue: this.alertProvisioning.queueDeadLetterQueue,
        ...Object.fromEntries(
          Object.entries(functions).map(([name, f]) => [`${name}Async`, f.deadLetterQueue]),
        ),
      },
    });
    acknowledgeCdkInternals(this);
  }
}
