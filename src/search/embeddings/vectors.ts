import path from 'node:path';
import * as z from 'zod';
import { openStateStore } from '../../store/database.js';
import { kvTable, zodDecode } from '../../store/kv.js';
import { sha256 } from '../../util/hash.js';

/**
 * Vectors in the state store (`.memvault/state.sqlite`): the `vectors` table
 * holds, per model store (`storeName`), a row per content hash (its 32
 * bytes, then the vector as little-endian float32), and the `vectors` rows of
 * `kv` name the model and the vector size. A vector is written once per
 * content hash and never rewritten, so an edited memory adds one row and a
 * rebuild adds none. A batch is one transaction: a crash while appending
 * leaves the batches before it.
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

/** The name of a model's vectors: its name made safe to read, and a hash of what makes vectors comparable. */
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
  const store = openStateStore(path.join(root, '.memvault'));
  const meta = kvTable(store, 'vectors', zodDecode(z.object({ model: z.string(), dimensions: z.int().positive() })));
  const vectors = new Map<string, Float32Array>();
  let dims = meta.get(name)?.dimensions;
  if (dims !== undefined) {
    const rows = store.db.prepare('SELECT sha256, vector FROM vectors WHERE model = ?').raw(true).all(name) as [Buffer, Buffer][];
    for (const [sha, bytes] of rows) {
      // A row of another size (not written by this store) is left out.
      if (sha.length !== 32 || bytes.length !== dims * 4) continue;
      const vector = new Float32Array(dims);
      // Copied as bytes (little-endian hosts: x86, ARM), 20× faster than a float at a time.
      bytes.copy(Buffer.from(vector.buffer));
      vectors.set(sha.toString('hex'), vector);
    }
  }
  const insert = store.db.prepare('INSERT OR IGNORE INTO vectors (model, sha256, vector) VALUES (?, ?, ?)');
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
      store.transaction(() => {
        if (dims === undefined) {
          dims = entries[0]!.vector.length;
          meta.set(name, { model, dimensions: dims });
        }
        for (const { sha, vector } of entries) {
          if (vector.length !== dims || !/^[0-9a-f]{64}$/.test(sha)) continue;
          const unit = normalize(vector);
          insert.run(name, Buffer.from(sha, 'hex'), Buffer.from(unit.buffer, unit.byteOffset, unit.byteLength));
          vectors.set(sha, unit);
        }
      });
    },
  };
}

/** Changes when vectors of the model are added (they are never rewritten): a reader holding them opens the store again. */
export function vectorsStamp(root: string, model: string, dimensions: number | undefined): string {
  try {
    const { db } = openStateStore(path.join(root, '.memvault'));
    return String(db.prepare('SELECT count(*) FROM vectors WHERE model = ?').pluck().get(storeName(model, dimensions)));
  } catch {
    return 'none';
  }
}
