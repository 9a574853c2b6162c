/** Context for synthesizing the stack outside the CDK CLI (values only shape the template). */
export const BASE_CONTEXT: Record<string, unknown> = {
  'cloudops:apiUrl': 'https://api.example.test/v1',
  'cloudops:observabilityUrl': 'https://obs.example.test',
  'cloudops:organizationId': '11111111-1111-4111-8111-111111111111',
  'cloudops:serviceIds': '22222222-2222-4222-8222-222222222222',
};
