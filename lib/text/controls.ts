/**
 * What no channel shows as sent: terminal control sequences (ESC and the C1 CSI/OSC forms, with
 * their parameters, so `\u001b[31m` leaves nothing behind), other C0/C1 controls and DEL, and the
 * bidi controls that make text read in another order than it is stored (U+202A–U+202E
 * embeddings and overrides, U+2066–U+2069 isolates, and the LRM/RLM/ALM marks). Each channel's
 * module (terminal.ts, plain.ts, the Slack notifier's slack-text.ts) starts from this.
 */

/* eslint-disable no-control-regex -- matching control characters is this module's purpose */

/** ESC or C1 sequences: CSI (`ESC [` / U+009B), OSC/DCS/PM/APC strings, and two-byte ESC forms. */
const SEQUENCES =
  /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]|(?:\u001b[\]PX^_]|[\u0090\u009d\u009e\u009f])[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u001b[ -~]?/g;
/** Controls left after the sequences (tab, line feed and carriage return are whitespace). */
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;
/* eslint-enable no-control-regex */
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const LINE_BREAKS = /[\t\n\r]+/g;

/**
 * `text` without control sequences, controls and bidi controls. `lines: 'keep'` keeps tabs and
 * line breaks (a multi-line block); by default each run of them becomes one space (one field on
 * one line, which a value must not break into two).
 */
export function withoutControls(text: string, lines: 'keep' | 'join' = 'join'): string {
  const cleaned = text.replace(SEQUENCES, '').replace(CONTROLS, '').replace(BIDI, '');
  return lines === 'keep' ? cleaned : cleaned.replace(LINE_BREAKS, ' ');
}
