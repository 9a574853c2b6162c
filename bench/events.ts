/** The events that start the sync function, as EventBridge and S3 deliver them (bench and tests). */
import { randomUUID } from 'node:crypto';

/** The drift schedule's event. */
export const scheduledEvent = () => ({
  version: '0',
  id: randomUUID(),
  source: 'aws.events',
  'detail-type': 'Scheduled Event',
  detail: {},
});

/** S3's notification of one object put under the dashboards prefix. */
export const s3PutEvent = (bucket: string, key: string) => ({
  Records: [
    {
      eventSource: 'aws:s3',
      eventName: 'ObjectCreated:Put',
      s3: { bucket: { name: bucket }, object: { key } },
    },
  ],
});
