/**
 * Untrusted text (names and messages from the service) for a terminal: no escape sequence can
 * recolour, retitle or clear it, no bidi control can reorder what is read, and a value never
 * breaks into a line of its own. JSON output carries the raw value instead.
 */
import { withoutControls } from './controls';

/** One value on one line. */
export function forTerminal(text: string): string {
  return withoutControls(text);
}

/** A message that may span lines (a list of validation issues): line breaks kept. */
export function linesForTerminal(text: string): string {
  return withoutControls(text, 'keep');
}

/** A copy of `value` with every string in it made safe for a terminal (for a renderer's input). */
export function forTerminalDeep<T>(value: T): T {
  if (typeof value === 'string') return forTerminal(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => forTerminalDeep(item)) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, field]) => [key, forTerminalDeep(field)]),
  ) as T;
}
