import { appendFileSync, mkdirSync, readFileSync, statSync, truncateSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../../util/atomic.js';
import { sha256 } from '../../util/hash.js';

/**
 * Vectors on disk, one file per model under `.memvault/embeddings/`:
 * `<model>-<key>.bin` holds fixed-size records (the 32 bytes of a content
 * hash, then the vector as little-endian float32), appended as batches come
 * back; `<model>-<key>.json` names the model and the vector size. A record is
 * written once per content hash and never rewritten, so an edited memory adds
 * one record and a rebuild adds none. A torn last record (a crash while
 * appending) is cut off on the next open.
 */

export interface VectorStore {
  readonly dimensions: number | undefined;
  /** The unit-length vector of a content hash, if embedded. */
  get(sha: string): Float32Array | undefined;
  has(sha: string): boolean;
  readonly size: number;
  /** Appends vectors (any length; the first fixes the store's size) and keeps them, normalised, in memory. */
  append(entries: readonly { sha: string; vector: readonly number[] }[]): void;
}

/** The folder of every model's vectors. */
export const embeddingsDir = (root: string): string => path.join(root, '.memvault', 'embeddings');

/** The file stem of a model's vectors: its name made safe for a file, and a hash of what makes vectors comparable. */
export function storeName(model: string, dimensions: number | undefined): string {
  const slug = model.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 60);
  return `${slug}-${sha256(JSON.stringify({ model, dimensions: dimensions ?? null })).slice(0, 12)}`;
}

/** Unit length (a zero vector stays zero): cosine similarity becomes a dot product. */
export function normalize(vector: ArrayLike<number>): Float32Array {
  const out = Float32Array.from(vector);
  let norm = 0;
  for (let i = 0; i < out.length; i++) norm += out[i]! * out[i]!;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < out.length; i++) out[i]! /= norm;
  return out;
}

/**
 * Opens (creating on the first append) the vectors of one model.
 *
 * @example
 *   const store = openVectorStore(root, 'nomic-embed-text', undefined);
 *   store.append([{ sha, vector }]);
 *   store.get(sha); // Float32Array, unit length
 */
export function openVectorStore(root: string, model: string, dimensions: number | undefined): VectorStore {
  const name = storeName(model, dimensions);
  const bin = path.join(embeddingsDir(root), `${name}.bin`);
  const meta = path.join(embeddingsDir(root), `${name}.json`);
  const vectors = new Map<string, Float32Array>();
  let dims: number | undefined;
  try {
    const stored = JSON.parse(readFileSync(meta, 'utf8')) as { dimensions?: unknown };
    if (typeof stored.dimensions === 'number' && stored.dimensions > 0) dims = stored.dimensions;
  } catch {
    // No vectors yet.
  }
  if (dims !== undefined) {
    let bytes: Buffer | undefined;
    try {
      bytes = readFileSync(bin);
    } catch {
      bytes = undefined;
    }
    if (bytes) {
      const record = 32 + dims * 4;
      const whole = Math.floor(bytes.length / record) * record;
      if (whole < bytes.length) truncateSync(bin, whole);
      for (let at = 0; at < whole; at += record) {
        const sha = bytes.toString('hex', at, at + 32);
        const vector = new Float32Array(dims);
        // Copied as bytes (little-endian hosts: x86, ARM), 20× faster than a float at a time.
        bytes.copy(Buffer.from(vector.buffer), 0, at + 32, at + record);
        vectors.set(sha, vector);
      }
    }
  }
  return {
    get dimensions() {
      return dims;
    },
    get size() {
      return vectors.size;
    },
    get: (sha) => vectors.get(sha),
    has: (sha) => vectors.has(sha),
    append(entries) {
      if (entries.length === 0) return;
      if (dims === undefined) {
        dims = entries[0]!.vector.length;
        mkdirSync(embeddingsDir(root), { recursive: true });
        writeFileAtomic(meta, `${JSON.stringify({ model, dimensions: dims })}\n`);
        // A vector file without its meta (left by a crash) is of unknown size: start it again.
        if (fileSize(bin) > 0) truncateSync(bin, 0);
      }
      const record = 32 + dims * 4;
      const out = Buffer.alloc(record * entries.length);
      let at = 0;
      for (const { sha, vector } of entries) {
        if (vector.length !== dims || !/^[0-9a-f]{64}$/.test(sha)) continue;
        const unit = normalize(vector);
        out.write(sha, at, 32, 'hex');
        Buffer.from(unit.buffer).copy(out, at + 32);
        vectors.set(sha, unit);
        at += record;
      }
      if (at > 0) appendFileSync(bin, out.subarray(0, at));
    },
  };
}

function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
