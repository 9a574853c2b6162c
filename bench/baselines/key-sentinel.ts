/** Baseline of key-sentinel: read AWSCURRENT, publish one notice (the seeded key has no expiry). */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';

const sm = new SecretsManagerClient({});
const sns = new SNSClient({});

export async function handler(event: { secretId: string; topicArn: string }): Promise<boolean> {
  const out = await sm.send(
    new GetSecretValueCommand({ SecretId: event.secretId, VersionStage: 'AWSCURRENT' }),
  );
  await sns.send(new PublishCommand({ TopicArn: event.topicArn, Message: 'baseline notice' }));
  return typeof out.SecretString === 'string';
}
