import { readFileSync } from 'node:fs';
import path from 'node:path';
import ignoreModule from 'ignore';

/**
 * Whether git ignores a path, by the same rules and the same `ignore`
 * package as isomorphic-git's `isIgnored`: `.git/info/exclude` and the
 * `.gitignore` of each folder from the work-tree root down, a file in an
 * ignored folder staying ignored. Kept here so a build's commit does not
 * load isomorphic-git; the `.gitignore` files are read once per `IgnoreRules`.
 */

// The package is CommonJS with a `default` property pointing at itself; its types describe only that property.
const ignore = ignoreModule.default;

export class IgnoreRules {
  private readonly files = new Map<string, string>();

  constructor(
    private readonly dir: string,
    private readonly gitdir: string,
  ) {}

  /** `filepath`: relative to the work tree, POSIX separators. */
  isIgnored(filepath: string): boolean {
    if (path.posix.basename(filepath) === '.git') return true;
    if (filepath === '.') return false;
    const pieces = filepath.split('/').filter(Boolean);
    const levels = [{ gitignore: '.gitignore', filepath }];
    for (let i = 1; i < pieces.length; i++) {
      levels.push({ gitignore: `${pieces.slice(0, i).join('/')}/.gitignore`, filepath: pieces.slice(i).join('/') });
    }
    let ignored = false;
    for (const [index, level] of levels.entries()) {
      const rules = ignore();
      // .git/info/exclude is relative to the work tree: only the first level holds the full path.
      if (index === 0) rules.add(this.read(path.join(this.gitdir, 'info', 'exclude')));
      rules.add(this.read(path.join(this.dir, level.gitignore)));
      // "It is not possible to re-include a file if a parent directory of that file is excluded." (gitignore(5))
      const parent = path.posix.dirname(level.filepath);
      if (parent !== '.' && rules.ignores(parent)) return true;
      ignored = ignored ? !rules.test(level.filepath).unignored : rules.test(level.filepath).ignored;
    }
    return ignored;
  }

  private read(file: string): string {
    let text = this.files.get(file);
    if (text === undefined) {
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        text = '';
      }
      this.files.set(file, text);
    }
    return text;
  }
}
