/** A secret found in a text: `[start, end)` is what a `[REDACTED:kind]` marker replaces. */
export interface Finding {
  kind: string;
  start: number;
  end: number;
}
