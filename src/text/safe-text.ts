/**
 * Vault text is untrusted (docs/security.md): a memory can hold terminal
 * control sequences, and a title can hold line breaks. Two guards, each used
 * at the one place where text leaves memvault:
 *
 * - `oneLine` where a one-line field (title, kind, tag, fact) is rendered into
 *   markdown, so it cannot start a heading or a list of its own;
 * - `showControls` where the CLI prints text (src/cli/output.ts `writeText`),
 *   so the terminal sees no control sequence and a person sees that one was there.
 */

/**
 * Line breaks a markdown reader or an editor may honour: CR, LF, VT, FF, NEL
 * (U+0085), LINE SEPARATOR and PARAGRAPH SEPARATOR, with the spaces around them.
 */
const LINE_BREAK = /[\n\r\v\f\u0085\u2028\u2029]/;
const LINE_BREAKS = /[^\S\n\r\v\f\u2028\u2029]*[\n\r\v\f\u0085\u2028\u2029][\s\u0085]*/g;

/**
 * `text` on one line: every run of line breaks (and the white space around it)
 * becomes one space, none at either end. Text without a line break is returned
 * as it is, so ordinary titles render byte for byte as before.
 *
 * @example
 *   oneLine('Deploy\n\n## Critical (pinned)') // 'Deploy ## Critical (pinned)'
 */
export function oneLine(text: string): string {
  if (!LINE_BREAK.test(text)) return text;
  return text.replace(LINE_BREAKS, (run, offset: number) => (offset === 0 || offset + run.length === text.length ? '' : ' '));
}

/** C0 controls but tab, newline and carriage return; DEL; the C1 controls. What no memory text needs. */
export const CONTROL_CHARACTER = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/**
 * C0 controls but tab and newline, a CR not followed by a newline, DEL, and the
 * C1 controls U+0080–U+009F (U+009B is a one-character CSI on some terminals).
 * Together they are every character a terminal may act on instead of showing;
 * without ESC, BEL or CSI the rest of a sequence (`]52;c;…`) is plain text.
 */
const CONTROL = new RegExp(`${CONTROL_CHARACTER.source}|\\r(?!\\n)`);
const CONTROLS = new RegExp(CONTROL.source, 'g');

/**
 * `text` with every control character a terminal would act on made visible:
 * C0 controls and DEL become their Unicode control pictures (ESC → `␛`,
 * BEL → `␇`, a lone CR → `␍`, DEL → `␡`); C1 controls, which have no pictures,
 * become `\x9b`-style escapes. Newline, tab, CRLF line ends and all other
 * Unicode (accents, CJK, emoji, right-to-left text) are kept as they are.
 *
 * @example
 *   showControls('\x1b]52;c;aGk=\x07 done') // '␛]52;c;aGk=␇ done'
 */
export function showControls(text: string): string {
  if (!CONTROL.test(text)) return text;
  return text.replace(CONTROLS, (char) => {
    const code = char.charCodeAt(0);
    if (code < 0x20) return String.fromCharCode(0x2400 + code);
    if (code === 0x7f) return '\u2421';
    return `\\x${code.toString(16)}`;
  });
}
