import type { Diagnostic } from '../vault/model.js';
import { jsonSyntaxError } from './json-position.js';
import { fail } from './session.js';

/**
 * The JSON lines of a log an agent appends to as it works (Claude Code, Codex, Gemini CLI, Cursor): a line that is
 * not JSON is an error unless it is the last one, cut off because the session was still being written, which is
 * ignored with a warning. Shared by the transcript parsers, each of which reads what the values mean.
 */
export class AppendedJsonLines {
  /** A line that is not JSON: an error unless it is the last one of a log still being written. */
  private pending: { line: number; column: number; reason: string } | undefined;
  private sawLine = false;

  /** `hint`: what the file should be, said with a line that is not JSON (`each line of a … is one JSON object`). */
  constructor(
    private readonly file: string,
    private readonly hint: string,
    private readonly rule: string,
  ) {}

  /**
   * The value of one line (without its `\n`, numbered from 1); undefined for a blank line or one that is not JSON
   * (held until the next line shows it was not the last).
   */
  parse(text: string, lineNo: number): { value: unknown; raw: string } | undefined {
    const raw = (lineNo === 1 ? text.replace(/^\uFEFF/, '') : text).replace(/\r$/, '');
    if (raw.trim() === '') return undefined;
    if (this.pending) this.failPending();
    this.sawLine = true;
    try {
      return { value: JSON.parse(raw), raw };
    } catch (error) {
      const where = jsonSyntaxError(raw, error);
      this.pending = { line: lineNo, column: where.column, reason: where.reason };
      return undefined;
    }
  }

  /**
   * Once every line was read (`endsWithNewline`: the file's last byte was a line break): the warning for a cut-off
   * last line, if any. Fails on an empty file, and on a bad last line that was complete.
   */
  finish(endsWithNewline: boolean): Diagnostic[] {
    const warnings: Diagnostic[] = [];
    if (this.pending) {
      if (endsWithNewline) this.failPending();
      warnings.push({
        path: this.file,
        line: this.pending.line,
        column: this.pending.column,
        severity: 'warning',
        reason: 'incomplete last line ignored (the session was still being written?)',
        hint: 'ingest the file again once the session has ended',
        rule: this.rule,
      });
    }
    if (!this.sawLine) fail(this.file, 1, 1, 'empty file', 'nothing to import', 'ingest/format');
    return warnings;
  }

  /** A record that came another way (a Gemini CLI session saved as one JSON document) counts as read. */
  countRecord(): void {
    this.sawLine = true;
  }

  private failPending(): never {
    const { line, column, reason } = this.pending!;
    return fail(this.file, line, column, `not valid JSON: ${reason}`, this.hint, this.rule);
  }
}
