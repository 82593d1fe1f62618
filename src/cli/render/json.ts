/** Data as `--json` prints it: indented, one trailing newline. */
export function renderJson(data: unknown): string {
  return `${JSON.stringify(data, null, 2)}\n`;
}
