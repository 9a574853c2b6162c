/** CloudWatch Embedded Metric Format for one watchdog run, written as one JSON line to a sink. */
export interface RunMetrics {
  pipesChecked: number;
  transitions: number;
  notifications: number;
  apiErrors: number;
  notifyErrors: number;
  durationMs: number;
  /** Services answering 424 (idle): not checked, not an error. */
  servicesIdle: number;
  /** Pending notifications given up (attempts, age or size): each also logged as an error. */
  deliveriesDropped: number;
}

export type MetricsSink = (line: string) => void;

export const METRICS_NAMESPACE = 'cloudops';

export function emfLine(
  metrics: RunMetrics,
  timestamp: number,
  dimensions: Record<string, string> = { function: 'pipe-watchdog' },
): string {
  const names: [keyof RunMetrics, string, string][] = [
    ['pipesChecked', 'PipesChecked', 'Count'],
    ['transitions', 'Transitions', 'Count'],
    ['notifications', 'Notifications', 'Count'],
    ['apiErrors', 'ApiErrors', 'Count'],
    ['notifyErrors', 'NotifyErrors', 'Count'],
    ['durationMs', 'Duration', 'Milliseconds'],
    ['servicesIdle', 'ServicesIdle', 'Count'],
    ['deliveriesDropped', 'DeliveriesDropped', 'Count'],
  ];
  const line: Record<string, unknown> = {
    _aws: {
      Timestamp: timestamp,
      CloudWatchMetrics: [
        {
          Namespace: METRICS_NAMESPACE,
          Dimensions: [Object.keys(dimensions)],
          Metrics: names.map(([, Name, Unit]) => ({ Name, Unit })),
        },
      ],
    },
    ...dimensions,
  };
  for (const [key, name] of names) line[name] = metrics[key];
  return JSON.stringify(line);
}
