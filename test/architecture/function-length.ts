import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * Every function in `src/` whose body is long, read with the TypeScript
 * compiler's parser (no type checking: well under a second). A body's length
 * is counted from the line of its opening brace to the line of its closing
 * one, both included — the same count `issues show 28` quotes.
 */

/** One long function: where it is and how many lines its body spans. */
export type LongFunction = { key: string; lines: number; line: number };

/** Function declarations, methods, arrows and function expressions with a body longer than `limit` lines. */
export function longFunctions(root: string, limit: number, dir = 'src'): LongFunction[] {
  const files = readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
  return files.flatMap((file) => longFunctionsIn(readFileSync(path.join(root, file), 'utf8'), file, limit));
}

/** The long functions of one module; `file` names it in each key. */
export function longFunctionsIn(source: string, file: string, limit: number): LongFunction[] {
  const sourceFile = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: LongFunction[] = [];
  const lineOf = (position: number) => sourceFile.getLineAndCharacterOfPosition(position).line;
  const visit = (node: ts.Node): void => {
    if (isFunctionWithBody(node)) {
      const body = node.body;
      const lines = lineOf(body.getEnd()) - lineOf(body.getStart()) + 1;
      if (lines > limit) found.push({ key: `${file} › ${functionName(node)}`, lines, line: lineOf(node.getStart()) + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  // Two callbacks in one function share a name: number the later ones.
  const seen = new Map<string, number>();
  return found.map((entry) => {
    const count = (seen.get(entry.key) ?? 0) + 1;
    seen.set(entry.key, count);
    return count === 1 ? entry : { ...entry, key: `${entry.key} #${count}` };
  });
}

type FunctionWithBody = ts.FunctionLikeDeclaration & { body: ts.ConciseBody };

function isFunctionWithBody(node: ts.Node): node is FunctionWithBody {
  return (
    (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node)) &&
    node.body !== undefined
  );
}

/**
 * A name a reader can find: the function's own, else the variable or property
 * it is assigned to, else `(callback in X)` after the nearest named function
 * around it — stable across edits that move lines, unlike a line number.
 */
function functionName(node: FunctionWithBody): string {
  const own = nameOf(node) ?? nameOf(node.parent);
  if (own !== undefined) return own;
  for (let outer = node.parent; outer !== undefined; outer = outer.parent) {
    if (isFunctionWithBody(outer)) return `(callback in ${functionName(outer)})`;
  }
  return '(callback)';
}

function nameOf(node: ts.Node): string | undefined {
  if (
    (ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isFunctionExpression(node) ||
      ts.isVariableDeclaration(node) ||
      ts.isPropertyAssignment(node)) &&
    node.name !== undefined &&
    (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name))
  ) {
    return node.name.text;
  }
  return undefined;
}
