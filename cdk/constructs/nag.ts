/**
 * cdk-nag acknowledgements for the S3 notifications handler aws-cdk-lib adds by itself
 * (a stack-level singleton whose role is not configurable).
 */
import { Validations, type Stack } from 'aws-cdk-lib';

export function acknowledgeCdkInternals(stack: Stack): void {
  for (const child of stack.node.children) {
    if (!child.node.id.startsWith('BucketNotificationsHandler')) continue;
    Validations.of(child).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason:
        "aws-cdk-lib's S3 notifications handler (runs at deploy to set the bucket's notifications) uses the basic execution managed policy for its logs.",
    });
  }
}
