import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The import graph of `src/`, read with the TypeScript compiler's parser (no
 * type checking, so it takes well under a second): every relative `import`,
 * `export … from`, `import()` and `import('…')` type, type-only ones included.
 * A type-only import vanishes at run time, but it still ties the two modules
 * together for a reader and for a refactoring, so it counts here too.
 * Cross-checked against dependency-cruiser (docs/architecture.md, "Rules").
 */

/** A module (path relative to the repository, `src/…/x.ts`) → the modules it imports. */
export type ImportGraph = Map<string, Set<string>>;

export function readImportGraph(root: string, dir = 'src'): ImportGraph {
  const graph: ImportGraph = new Map();
  const files = readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'));
  const known = new Set(files);
  for (const file of files) {
    const targets = new Set<string>();
    for (const specifier of importSpecifiers(readFileSync(path.join(root, file), 'utf8'), file)) {
      const target = resolveSpecifier(file, specifier, known);
      if (target !== undefined && target !== file) targets.add(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** Every module specifier `source` names: static, re-exported, dynamic and in `import('…')` types. */
export function importSpecifiers(source: string, fileName = 'module.ts'): string[] {
  const sourceFile = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [first] = node.arguments;
      if (first && ts.isStringLiteralLike(first)) found.push(first.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return found;
}

/** The module a relative specifier (`../x.js`, `./dir/index.js`) names, when it is one of `known`; packages and node: give undefined. */
function resolveSpecifier(from: string, specifier: string, known: ReadonlySet<string>): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.posix.join(path.posix.dirname(from), specifier).replace(/\.js$/, '');
  return [`${base}.ts`, `${base}/index.ts`].find((candidate) => known.has(candidate));
}

/** The groups of modules that import each other, directly or round a loop (strongly connected components of two or more), each sorted. */
export function importCycles(graph: ImportGraph): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  // Tarjan's algorithm, iterative: a deep chain of imports must not overflow the call stack.
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; next: Iterator<string> }[] = [];
    const enter = (node: string): void => {
      index.set(node, counter);
      low.set(node, counter++);
      stack.push(node);
      onStack.add(node);
      work.push({ node, next: (graph.get(node) ?? new Set<string>()).values() });
    };
    enter(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const step = frame.next.next();
      if (!step.done) {
        const target = step.value;
        if (!index.has(target)) enter(target);
        else if (onStack.has(target)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== frame.node);
      if (group.length > 1) cycles.push(group.sort());
    }
  }
  return cycles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** A folder pair importing each other, with an import each way (`from → to`) for the message. */
export interface FolderPair {
  folders: [string, string];
  examples: string[];
}

/**
 * Pairs of folders whose modules import each other. `folderOf` names a
 * module's folder (for the top level: `src/pipeline/calendar/plan.ts` →
 * `pipeline`); modules it gives undefined for (files directly in `src/`) are
 * left out, and so are pairs `compare` says are not to be compared.
 */
export function mutualFolders(
  graph: ImportGraph,
  folderOf: (module: string) => string | undefined,
  compare: (a: string, b: string) => boolean = () => true,
): FolderPair[] {
  const edges = new Map<string, string>();
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const a = folderOf(from);
      const b = folderOf(to);
      if (a === undefined || b === undefined || a === b || !compare(a, b)) continue;
      if (!edges.has(`${a}\u0000${b}`)) edges.set(`${a}\u0000${b}`, `${from} → ${to}`);
    }
  }
  const pairs: FolderPair[] = [];
  for (const [key, example] of edges) {
    const [a, b] = key.split('\u0000') as [string, string];
    const back = edges.get(`${b}\u0000${a}`);
    if (a < b && back !== undefined) pairs.push({ folders: [a, b], examples: [example, back] });
  }
  return pairs.sort((x, y) => x.folders.join('/').localeCompare(y.folders.join('/')));
}

/** The graph of folders: `a` → `b` when a module of `a` imports one of `b` (`folderOf` as for `mutualFolders`). */
export function folderGraph(graph: ImportGraph, folderOf: (module: string) => string | undefined): ImportGraph {
  const folders: ImportGraph = new Map();
  for (const [from, targets] of graph) {
    const a = folderOf(from);
    if (a === undefined) continue;
    if (!folders.has(a)) folders.set(a, new Set());
    for (const to of targets) {
      const b = folderOf(to);
      if (b !== undefined && b !== a) folders.get(a)!.add(b);
    }
  }
  return folders;
}

/** `src/pipeline/calendar/plan.ts` → `pipeline`; a file directly in `src/` has no folder. */
export function topFolder(module: string): string | undefined {
  const parts = module.split('/');
  return parts.length > 2 ? parts[1] : undefined;
}

/** `src/pipeline/calendar/plan.ts` → `pipeline/calendar`. */
export function folderPath(module: string): string | undefined {
  const parts = module.split('/');
  return parts.length > 2 ? parts.slice(1, -1).join('/') : undefined;
}

/** Two folders side by side (neither inside the other): `pipeline/calendar` and `pipeline/package`, not `pipeline` and `pipeline/package`. */
export function siblings(a: string, b: string): boolean {
  return !`${a}/`.startsWith(`${b}/`) && !`${b}/`.startsWith(`${a}/`);
}
