/**
 * A generated summary's frontmatter written without the `yaml` library, byte
 * for byte what `stringifyFrontmatter` writes for the shapes a summary has:
 * top-level keys with a string or an integer, a list of scalars or a map of
 * scalars (one line, flow style), or a list of such maps (`sources`, one
 * flow map per line). Every build thread writes ~600 summaries in a cold
 * build of 4,000 memories, and building a `yaml` Document for each was ~0.6 s
 * of a thread (issue 29). Anything else (an empty list, a nested list, a
 * boolean, a string with a line break or a control character, a string `yaml`
 * would write in block style) returns undefined and the caller uses `yaml`.
 *
 * Scalars follow yaml 2.x's rules (stringify/stringifyString.js, core
 * schema): plain unless the text could be read as something else (an
 * indicator first, `: ` or ` #` inside, a flow character in a flow
 * collection, a number, boolean or null); then quoted, single quotes when it
 * has a `"` and no `'`, else double quotes (JSON's escapes). No folding:
 * `lineWidth` is 0. test/vault/summary-yaml.test.ts compares it with
 * `stringifyFrontmatter` on random values and the bench vault's summaries.
 */
export function plainSummaryFrontmatter(data: Record<string, unknown>, body: string): string | undefined {
  let out = '---\n';
  for (const [key, value] of Object.entries(data)) {
    if (!PLAIN_KEY.test(key)) return undefined;
    if (Array.isArray(value) && value.length > 0 && value.every(isRecord)) {
      out += `${key}:\n`;
      for (const item of value) {
        const map = flowMap(item as Record<string, unknown>);
        if (map === undefined) return undefined;
        out += `  - ${map}\n`;
      }
      continue;
    }
    const written = Array.isArray(value) ? flowSeq(value) : isRecord(value) ? flowMap(value) : scalar(value, false);
    if (written === undefined) return undefined;
    out += `${key}: ${written}\n`;
  }
  return `${out}---\n${body}`;
}

const PLAIN_KEY = /^[a-z][a-z0-9_]*$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function flowSeq(items: readonly unknown[]): string | undefined {
  if (items.length === 0) return undefined;
  const written: string[] = [];
  for (const item of items) {
    const text = scalar(item, true);
    if (text === undefined) return undefined;
    written.push(text);
  }
  return `[ ${written.join(', ')} ]`;
}

function flowMap(map: Record<string, unknown>): string | undefined {
  const pairs: string[] = [];
  for (const [key, value] of Object.entries(map)) {
    const text = PLAIN_KEY.test(key) ? scalar(value, true) : undefined;
    if (text === undefined) return undefined;
    pairs.push(`${key}: ${text}`);
  }
  return pairs.length === 0 ? undefined : `{ ${pairs.join(', ')} }`;
}

function scalar(value: unknown, inFlow: boolean): string | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && !Object.is(value, -0) ? String(value) : undefined;
  if (typeof value !== 'string' || value.length === 0 || UNWRITABLE.test(value) || DOCUMENT_MARKER.test(value)) return undefined;
  if ((inFlow && FLOW_CHARACTER.test(value)) || NOT_PLAIN.test(value) || CORE_TAGS.some((tag) => tag.test(value))) {
    // yaml's `quotedString` with `singleQuote` unset: single quotes only for a `"` without a `'`.
    return value.includes('"') && !value.includes("'") ? `'${value}'` : JSON.stringify(value);
  }
  return value;
}

/** Line breaks, tabs, control characters, lone surrogates, U+2028/2029 and the BOM: left to `yaml`. */
const UNWRITABLE = /[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff]/;
/** What yaml's `containsDocumentMarker` finds (a plain scalar at the top level would then be written in block style). */
const DOCUMENT_MARKER = /^(?:%|---|\.\.\.)/;
const FLOW_CHARACTER = /[[\]{},]/;
/** yaml's `plainString` test, for a single line: an indicator first, a lone `-`/`?`, `: ` or ` #` inside, a blank or `:` last. */
const NOT_PLAIN = /^[\n\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|[\n:][ \t]|[ \t]\n|[\n\t ]#|[\n\t :]$/;
/** The core schema's tags other than strings: a plain scalar matching one would read back as a number, boolean or null. */
const CORE_TAGS: readonly RegExp[] = [
  /^(?:~|[Nn]ull|NULL)?$/,
  /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/,
  /^0o[0-7]+$/,
  /^[-+]?[0-9]+$/,
  /^0x[0-9a-fA-F]+$/,
  /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/,
];
