/**
 * Untrusted text (pipe and service names, states, messages built from them) in Slack mrkdwn.
 * Slack parses `&`, `<` and `>` (`<!channel>`, `<@U123>`, `<https://x|label>`), so they are sent
 * as HTML entities, as Slack asks; every mrkdwn object is sent `verbatim`, so Slack does not turn
 * plain `@channel` or a bare URL into a mention or a link either, and `@channel`-like words are
 * also broken with a word joiner for clients that parse anyway. Controls and bidi controls go.
 * Formatting characters (`*`, `_`, `~`) have no escape in mrkdwn: they may style their own
 * value, never reach past it. Code spans cannot be closed from inside (backticks are replaced).
 */
import { withoutControls } from '../../text/controls';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };
/** Slack's broadcast words; a word joiner after `@` keeps the word and drops the mention. */
const BROADCAST = /(?<![\w.])@(channel|here|everyone)\b/gi;
const WORD_JOINER = '\u2060';

/** A value in mrkdwn text; `lines: 'keep'` for a multi-line block (a plan in a code block). */
export function mrkdwn(text: string, lines: 'keep' | 'join' = 'join'): string {
  return withoutControls(text, lines)
    .replace(/[&<>]/g, (c) => ENTITIES[c])
    .replace(BROADCAST, (_, word: string) => `@${WORD_JOINER}${word}`);
}

/** A value shown as inline code (an id): as `mrkdwn`, and a backtick cannot end the span. */
export function mrkdwnCode(text: string): string {
  return `\`${mrkdwn(text).replace(/`/g, 'ˋ')}\``;
}

/**
 * Plain text (a header). Whether Slack decodes entities there is not documented, so `<` becomes
 * the look-alike ‹ (no control sequence can start); the message body shows the name exactly.
 */
export function slackPlain(text: string): string {
  return withoutControls(text).replace(/</g, '‹');
}
