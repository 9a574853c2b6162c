/**
 * A 2xx answer read as text (the metrics endpoint's Prometheus exposition): `text/plain` (or no
 * content type) goes to the schema; anything else (an HTML page, a JSON envelope) is an
 * UnexpectedResponseError, never text read as data. Its errors still come as JSON envelopes,
 * so it accepts both.
 */
import { invalidAnswer, unexpectedResponse } from './errors';
import type { AnswerReader } from './http';

export const textAnswer: AnswerReader = {
  accept: 'text/plain, application/json',
  read(schema, ref, response, text) {
    const status = response.status;
    const requestId = response.headers.get('x-request-id') ?? undefined;
    const contentType = response.headers.get('content-type') ?? undefined;
    if (contentType !== undefined && !/^text\/plain\s*(;|$)/i.test(contentType)) {
      throw unexpectedResponse({
        ...ref,
        status,
        requestId,
        body: text,
        contentType,
        reason: 'a body that is not the text/plain it should be',
      });
    }
    const parsed = schema.safeParse(text);
    if (parsed.success) return parsed.data;
    const issues = parsed.error.issues.map((issue) => issue.message);
    throw invalidAnswer(ref, status, requestId, issues, 'text');
  },
};
