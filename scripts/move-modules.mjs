#!/usr/bin/env node
/**
 * Moves TypeScript modules with `git mv` and rewrites every relative import
 * specifier that pointed at them (and every relative specifier inside them),
 * in src/, test/ and scripts/. Nothing else in a file changes, so git's rename
 * detection carries edits made meanwhile on another branch across the move.
 *
 * Usage: node scripts/move-modules.mjs old.ts=new.ts [...]   (paths from the repository root)
 *        node scripts/move-modules.mjs --file moves.txt        (one `old new` pair a line, # comments)
 *        node scripts/move-modules.mjs --fix scripts/layout-moves.txt
 *
 * `--fix` moves nothing: after merging a branch written against the old
 * paths, it rewrites every relative specifier that no longer resolves, read
 * as the branch meant it (from the file's old place, if the file moved) and
 * mapped through the moves. Specifiers that still resolve are left alone.
 *
 * A specifier is rewritten when it is a string literal starting with ./ or ../
 * and ending in .js that names a .ts file (import, export, import(), vi.mock,
 * new URL(…, import.meta.url)). Check the result with `npx tsc --noEmit`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
const fix = args[0] === '--fix';
const pairs =
  args[0] === '--file' || fix
    ? readFileSync(args[1], 'utf8')
        .split('\n')
        .map((line) => line.replace(/#.*/, '').trim())
        .filter(Boolean)
        .map((line) => line.split(/\s+/))
    : args.map((arg) => arg.split('='));
const moves = new Map(pairs.map(([from, to]) => [path.normalize(from), path.normalize(to)]));
for (const [from, to] of fix ? [] : moves) {
  if (!existsSync(from)) throw new Error(`${from} does not exist`);
  if (existsSync(to)) throw new Error(`${to} exists already`);
}

const files = (dir) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ts|mts|mjs)$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name));
const all = ['src', 'test', 'scripts'].flatMap(files);
const specifier = /(['"])(\.\.?\/[^'"\n]*?\.js)\1/g;

/** Where a module ended up after all the moves (a list may move a file twice). */
function finalPath(file) {
  let current = file;
  for (let hops = 0; moves.has(current) && hops < 10; hops++) current = moves.get(current);
  return current;
}

function fixImports() {
  const before = new Map([...moves].map(([from, to]) => [to, from]));
  const oldPlaceOf = (file) => {
    let current = file;
    for (let hops = 0; before.has(current) && hops < 10; hops++) current = before.get(current);
    return current;
  };
  let fixed = 0;
  const unresolved = [];
  for (const file of all) {
    const text = readFileSync(file, 'utf8');
    const rewritten = text.replace(specifier, (whole, quote, spec) => {
      if (existsSync(path.join(path.dirname(file), spec).replace(/\.js$/, '.ts'))) return whole;
      for (const from of [oldPlaceOf(file), file]) {
        const target = finalPath(path.join(path.dirname(from), spec).replace(/\.js$/, '.ts'));
        if (!existsSync(target)) continue;
        let rel = path.relative(path.dirname(file), target).replace(/\.ts$/, '.js');
        if (!rel.startsWith('.')) rel = `./${rel}`;
        fixed++;
        return `${quote}${rel}${quote}`;
      }
      unresolved.push(`${file}: ${spec}`);
      return whole;
    });
    if (rewritten !== text) writeFileSync(file, rewritten);
  }
  console.log(`rewrote ${fixed} specifiers${unresolved.length ? `; not found:\n${unresolved.join('\n')}` : ''}`);
}

if (fix) {
  fixImports();
  process.exit(0);
}

let changed = 0;
for (const file of all) {
  const newFile = moves.get(file) ?? file;
  const text = readFileSync(file, 'utf8');
  const rewritten = text.replace(specifier, (whole, quote, spec) => {
    const target = path.join(path.dirname(file), spec).replace(/\.js$/, '.ts');
    if (!existsSync(target)) return whole;
    const newTarget = moves.get(target) ?? target;
    if (newTarget === target && newFile === file) return whole;
    let rel = path.relative(path.dirname(newFile), newTarget).replace(/\.ts$/, '.js');
    if (!rel.startsWith('.')) rel = `./${rel}`;
    return `${quote}${rel}${quote}`;
  });
  if (rewritten !== text) {
    writeFileSync(file, rewritten);
    changed++;
  }
}
for (const [from, to] of moves) {
  mkdirSync(path.dirname(to), { recursive: true });
  execFileSync('git', ['mv', from, to]);
}
console.log(`moved ${moves.size} files, rewrote imports in ${changed}`);
