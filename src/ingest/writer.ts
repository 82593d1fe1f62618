import { existsSync, linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../util/atomic.js';
import { sha256 } from '../util/hash.js';
import { ensureVaultTarget, mkdirInVault } from '../util/inside.js';
import { frontmatterFence, parseFrontmatter } from '../vault/frontmatter.js';
import { writeMemoryFile } from '../vault/memory-file.js';
import { listMarkdownFiles } from '../vault/scan.js';
import type { MemoryDraft, SourceRecord } from './render.js';

/**
 * Writing memories into the vault, shared by `add` (the CLI and MCP's
 * add_memory) and `ingest`: readable file names unique across clones
 * (`memories/YYYY/MM/YYYY-MM-DD-<slug>-<id>.md`, `<id>` six hex digits of the
 * file's SHA-256, then `-2`, `-3`…), claimed atomically so two writers never
 * overwrite each other; and
 * the index of what was ingested before, read from the memories' own
 * `source:` frontmatter (the vault is the record, not a side file).
 */

/** Words of the slug at most, and its length. */
const SLUG_WORDS = 8;
const SLUG_MAX = 60;

/** `Auth refactor: JWT → sessions!` → `auth-refactor-jwt-sessions`; `memory` when nothing is left. */
export function slugify(text: string): string {
  const words = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/\[redacted:[\w-]+\]/g, ' ')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .filter(Boolean)
    .slice(0, SLUG_WORDS);
  let slug = '';
  for (const word of words) {
    const next = slug ? `${slug}-${word}` : word;
    if (next.length > SLUG_MAX) break;
    slug = next;
  }
  return slug || (words[0] ?? '').slice(0, SLUG_MAX) || 'memory';
}

/** Vault-relative path of a memory: `<stream>/memories/YYYY/MM/YYYY-MM-DD-<slug>.md`, with `-n` for the n-th of a name. */
export function memoryPath(stream: string, day: string, slug: string, n = 1): string {
  return `${stream}/memories/${day.slice(0, 4)}/${day.slice(5, 7)}/${day}-${slug}${n > 1 ? `-${n}` : ''}.md`;
}

/** Hex digits of the content's SHA-256 in a new memory's name: 16.7 million names per title and day. */
const NAME_ID_CHARS = 6;

/**
 * Where `writeNewMemory` puts a memory of this text first: `memoryPath` with the slug followed by the first hex digits
 * of the file's SHA-256. Two clones that write the same title on the same day name two files, so a merge adds both
 * memories (before, both were `<day>-<slug>.md`: an add/add conflict that left git's markers in the memory); the same
 * text written on both is one name and one file, which git merges as is. Derived from the content, not drawn at random,
 * so a build with the same inputs writes the same names.
 */
export function newMemoryPath(stream: string, day: string, slug: string, text: string, n = 1): string {
  return memoryPath(stream, day, `${slug}-${sha256(text).slice(0, NAME_ID_CHARS)}`, n);
}

let counter = 0;

/**
 * Writes `text` as a new memory under the first free name and returns its
 * vault-relative path. The content goes to a hidden temp file first and is
 * hard-linked to the name, which fails if the name exists: a half-written
 * memory is never visible, and an existing one is never replaced.
 */
export function writeNewMemory(vaultDir: string, stream: string, day: string, slug: string, text: string): string {
  const dir = path.join(vaultDir, stream, 'memories', day.slice(0, 4), day.slice(5, 7));
  // Never through a link (a committed `memories/2026 -> /tmp/x`): refused before any folder is made.
  mkdirInVault(vaultDir, dir);
  const temp = path.join(dir, `.memvault-new.${process.pid}.${counter++}.tmp`);
  rmSync(temp, { force: true }); // a link planted at the name is removed, never written through (`wx` creates)
  writeFileSync(temp, text, { flag: 'wx' });
  try {
    for (let n = 1; ; n++) {
      const vaultPath = newMemoryPath(stream, day, slug, text, n);
      const target = path.join(vaultDir, vaultPath);
      try {
        linkSync(temp, target);
        return vaultPath;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EEXIST') continue;
        if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EXDEV') throw error;
        // No hard links on this file system: check, then rename (a narrow race, but never a partial file).
        if (existsSync(target)) continue;
        renameSync(temp, target);
        return vaultPath;
      }
    }
  } finally {
    rmSync(temp, { force: true });
  }
}

/** Replaces an existing memory's file atomically (an ingested session that grew). */
export function replaceMemory(vaultDir: string, vaultPath: string, text: string): void {
  ensureVaultTarget(vaultDir, path.join(vaultDir, vaultPath));
  writeFileAtomic(path.join(vaultDir, vaultPath), text);
}

/** The file text of a draft, with its `source:` record last in the frontmatter. */
export function draftText(draft: MemoryDraft): string {
  return writeMemoryFile({
    date: draft.date,
    title: draft.title,
    kind: draft.kind,
    tags: draft.tags,
    ...(draft.importance ? { importance: draft.importance } : {}),
    extra: { ...draft.extra, source: { ...draft.source } },
    body: draft.body,
  });
}

/** A memory written by an earlier ingest, as its frontmatter says. */
export interface IngestedMemory {
  /** Vault-relative path. */
  path: string;
  source: Partial<SourceRecord>;
  /** SHA-256 of its body now: differs from `source.body_sha256` when a person edited it. */
  bodySha256: string;
}

/** What earlier ingests wrote into a stream (memories and archive), found by the `source:` in each memory's frontmatter. */
export class IngestedIndex {
  private readonly byFile = new Map<string, IngestedMemory[]>();
  private readonly byPart = new Map<string, IngestedMemory>();

  static scan(vaultDir: string, stream: string): IngestedIndex {
    const index = new IngestedIndex();
    for (const folder of ['memories', 'archive']) {
      const dir = path.join(vaultDir, stream, folder);
      if (!existsSync(dir)) continue;
      for (const relative of listMarkdownFiles(dir)) {
        const vaultPath = `${stream}/${folder}/${relative}`;
        let text: string;
        try {
          text = readFileSync(path.join(vaultDir, vaultPath), 'utf8');
        } catch {
          continue;
        }
        // Cheap test first: only memories with a `source:` key in their frontmatter are parsed.
        const fence = frontmatterFence(text);
        if (!fence || !/^source:/m.test(fence.matter)) continue;
        const fm = parseFrontmatter(text);
        const source = fm.data.source;
        if (typeof source !== 'object' || source === null || Array.isArray(source)) continue;
        index.add({ path: vaultPath, source: source as Partial<SourceRecord>, bodySha256: sha256(fm.body.trim()) });
      }
    }
    return index;
  }

  add(memory: IngestedMemory): void {
    const { sha256: fileSha, mode } = memory.source;
    if (typeof fileSha === 'string') {
      const key = `${fileSha}\0${mode ?? ''}`;
      this.byFile.set(key, [...(this.byFile.get(key) ?? []), memory]);
    }
    this.byPart.set(partKey(memory.source), memory);
  }

  /** Memories made from exactly this file (same bytes) in this mode. */
  fromFile(fileSha: string, mode: SourceRecord['mode']): IngestedMemory[] {
    return this.byFile.get(`${fileSha}\0${mode ?? ''}`) ?? [];
  }

  /** The memory holding this session part (same session and day, same mode), from whichever file. */
  part(source: Pick<SourceRecord, 'format' | 'session' | 'part' | 'mode'>): IngestedMemory | undefined {
    return this.byPart.get(partKey(source));
  }
}

function partKey(source: Partial<Pick<SourceRecord, 'format' | 'session' | 'part' | 'mode'>>): string {
  return [source.format ?? '', source.session ?? '', source.part ?? '', source.mode ?? ''].join('\0');
}
