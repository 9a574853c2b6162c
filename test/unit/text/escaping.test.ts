/* eslint-disable no-control-regex -- these tests look for control characters in output */
/**
 * Untrusted names per channel: a terminal gets no escape sequence or bidi control, Slack gets
 * no mention, link or markup from data, a plain summary gets one clean line. The hostile names
 * are the ones a pipe or service can really be given.
 */
import { describe, expect, it } from 'vitest';
import { plainLine } from '../../../lib/text/plain';
import { forTerminal, forTerminalDeep, linesForTerminal } from '../../../lib/text/terminal';
import { mrkdwn, mrkdwnCode, slackPlain } from '../../../lib/watch/notifiers/slack-text';

const HOSTILE = {
  mention: '<!channel> x',
  bold: '*bold*',
  red: 'orders\u001b[31m-red\u001b[0m',
  reversed: 'invoice\u202egnp.exe',
} as const;

/** Any C0/C1 control (tab and newline included), DEL or bidi control. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe('terminal', () => {
  it('drops whole escape sequences, not just the ESC byte', () => {
    expect(forTerminal(HOSTILE.red)).toBe('orders-red');
    expect(forTerminal('a\u001b]0;pwned title\u0007b')).toBe('ab'); // OSC: set window title
    expect(forTerminal('a\u009b2Jb')).toBe('ab'); // the C1 form of CSI: clear screen
    expect(forTerminal('bell\u0007 null\u0000 del\u007f')).toBe('bell null del');
  });

  it('drops bidi overrides and isolates, so the name reads in the order it is stored', () => {
    expect(forTerminal(HOSTILE.reversed)).toBe('invoicegnp.exe');
    for (const c of [
      '\u202a',
      '\u202b',
      '\u202c',
      '\u202d',
      '\u2066',
      '\u2067',
      '\u2068',
      '\u2069',
    ])
      expect(forTerminal(`a${c}b`)).toBe('ab');
  });

  it('keeps a value on its line; keeps the rest of the text as it is', () => {
    expect(forTerminal('fake\nchecked 0 pipes')).toBe('fake checked 0 pipes');
    expect(forTerminal(HOSTILE.mention)).toBe('<!channel> x');
    expect(forTerminal(HOSTILE.bold)).toBe('*bold*');
    expect(forTerminal('café ✓ 東京')).toBe('café ✓ 東京');
    expect(linesForTerminal('issues:\n  a\u001b[2K\n  b')).toBe('issues:\n  a\n  b');
  });

  it('makes every string of a structure safe, leaving its shape and other values', () => {
    const deep = forTerminalDeep({ name: HOSTILE.red, tiles: [{ name: HOSTILE.reversed, w: 3 }] });
    expect(deep).toEqual({ name: 'orders-red', tiles: [{ name: 'invoicegnp.exe', w: 3 }] });
  });

  it('never lets a control through, whatever the input', () => {
    let all = '';
    for (let code = 0; code < 0x2100; code++) all += String.fromCharCode(code);
    expect(forTerminal(all)).not.toMatch(UNSAFE);
  });
});

describe('slack mrkdwn', () => {
  it('sends &, < and > as entities: no mention, user ping or link from a name', () => {
    expect(mrkdwn(HOSTILE.mention)).toBe('&lt;!channel&gt; x');
    expect(mrkdwn('<@U024BE7LH> <https://evil.example|click> a&b')).toBe(
      '&lt;@U024BE7LH&gt; &lt;https://evil.example|click&gt; a&amp;b',
    );
  });

  it('breaks @channel, @here and @everyone typed as plain words', () => {
    for (const word of ['@channel', '@here', '@everyone', '@Channel'])
      expect(mrkdwn(`hi ${word}`)).toBe(`hi @\u2060${word.slice(1)}`);
    expect(mrkdwn('ops@here.example')).toBe('ops@here.example'); // an address, not a mention
  });

  it('drops controls and bidi controls; formatting stays inside its own value', () => {
    expect(mrkdwn(HOSTILE.red)).toBe('orders-red');
    expect(mrkdwn(HOSTILE.reversed)).toBe('invoicegnp.exe');
    expect(mrkdwn(HOSTILE.bold)).toBe('*bold*');
    expect(mrkdwn('a\nb')).toBe('a b');
    expect(mrkdwn('```diff\n- <x>\n```', 'keep')).toBe('```diff\n- &lt;x&gt;\n```');
  });

  it('an id in a code span cannot close it', () => {
    expect(mrkdwnCode('p1` <!here> `')).toBe('`p1ˋ &lt;!here&gt; ˋ`');
  });

  it('plain text (a header): controls go, and < becomes a look-alike no sequence starts with', () => {
    expect(slackPlain(`${HOSTILE.mention} ${HOSTILE.red} a&b`)).toBe('‹!channel> x orders-red a&b');
  });
});

describe('plain summary', () => {
  it('is one clean line within its limit', () => {
    expect(plainLine(`  ${HOSTILE.red}\n\n${HOSTILE.reversed}  `, 1024)).toBe(
      'orders-red invoicegnp.exe',
    );
    const long = plainLine('x'.repeat(2000), 1024);
    expect(long).toHaveLength(1024);
    expect(long.endsWith('…')).toBe(true);
    expect(plainLine(HOSTILE.mention, 1024)).toBe('<!channel> x');
  });
});
