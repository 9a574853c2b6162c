/**
 * The watch table's variable, apart from the condition settings (record-settings.ts): a watcher
 * that follows no conditions (the key sentinel) reads the table alone, and its bundle carries
 * none of the condition settings' schemas.
 */
import * as z from 'zod/mini';

export const WATCH_TABLE_VARIABLE = 'CLOUDOPS_WATCHDOG_TABLE';

/** The table alone: a watcher without conditions to follow (the key sentinel) reads no more. */
export const watchTableShape = {
  /** DynamoDB table of the watched records (the functions); the CLI keeps a file instead. */
  [WATCH_TABLE_VARIABLE]: /* @__PURE__ */ z.optional(z.string().check(z.minLength(1))),
};
