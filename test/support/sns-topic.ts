/**
 * An SNS topic mocked at the SDK for the key sentinel's tests (it notifies through SNS alone):
 * every PublishBatch entry is taken, and what was published is read back as the notices it
 * carries (an SNS message's body is the notice as JSON).
 */
import { PublishBatchCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';

export const TOPIC_ARN = 'arn:aws:sns:us-east-1:000000000000:cloudops-notifications';

export function mockTopic() {
  const sns = mockClient(SNSClient);
  /** The PublishBatch calls already read by drain(). */
  let drained = 0;
  const accept = () =>
    sns
      .on(PublishBatchCommand)
      .callsFake((input: { PublishBatchRequestEntries: { Id: string }[] }) => ({
        Successful: input.PublishBatchRequestEntries.map((e) => ({ Id: e.Id, MessageId: e.Id })),
      }));
  return {
    /** The client to hand the sentinel (`notify.sns`). */
    client: () => new SNSClient({ region: 'us-east-1' }),
    /** From now on the topic takes every entry. */
    accept,
    /** From now on every PublishBatch call fails with `message`. */
    refuse: (message: string) => sns.on(PublishBatchCommand).rejects(new Error(message)),
    /** Forget every call and take every entry again (before each test). */
    reset() {
      sns.reset();
      accept();
      drained = 0;
    },
    /** The notices published since the last call. */
    drain<T>(): T[] {
      const calls = sns.commandCalls(PublishBatchCommand).slice(drained);
      drained += calls.length;
      return calls.flatMap((call) =>
        (call.args[0].input.PublishBatchRequestEntries ?? []).map(
          (entry) => JSON.parse(entry.Message!) as T,
        ),
      );
    },
    /** How many PublishBatch calls were made in all. */
    calls: () => sns.commandCalls(PublishBatchCommand).length,
    /** Every entry published, as sent (subject, body, attributes). */
    entries: () =>
      sns
        .commandCalls(PublishBatchCommand)
        .flatMap((call) => call.args[0].input.PublishBatchRequestEntries ?? []),
    restore: () => sns.restore(),
  };
}
