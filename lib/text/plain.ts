/**
 * Untrusted text for a plain-text field with a length limit (an incident's summary): one line,
 * no controls, no bidi controls, whitespace runs as one space, cut with an ellipsis.
 */
import { withoutControls } from './controls';

export function plainLine(text: string, maxChars: number): string {
  const line = withoutControls(text).replace(/\s+/g, ' ').trim();
  return line.length <= maxChars ? line : `${line.slice(0, maxChars - 1)}…`;
}
