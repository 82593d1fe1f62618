import { closeSync, fstatSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import path from 'node:path';
import { inflateSync } from 'node:zlib';

/**
 * Reading single objects out of git packfiles (`objects/pack/*.pack` with
 * their version-2 `.idx`): a binary search in the index, then one read of
 * that object's bytes, with deltas applied against their bases.
 *
 * Why not isomorphic-git's reader: it loads and checksums the whole
 * packfile before the first object (27 MB and ~150 ms for a 20,000-memory
 * vault), and loading the library itself costs ~80 ms. A commit only needs
 * HEAD's commit and the trees on the way to a few paths.
 * Format: https://git-scm.com/docs/gitformat-pack
 */

export type ObjectType = 'commit' | 'tree' | 'blob' | 'tag';

export interface GitObject {
  type: ObjectType;
  content: Buffer;
}

const TYPES: Record<number, ObjectType> = { 1: 'commit', 2: 'tree', 3: 'blob', 4: 'tag' };
const OFS_DELTA = 6;
const REF_DELTA = 7;
const IDX_MAGIC = 0xff744f63;

interface PackIndex {
  packPath: string;
  idx: Buffer;
  count: number;
  packSize: number;
  fd: number | undefined;
}

/** Bytes of an object's header: type and size (up to 10), then a delta's base offset (up to 10) or id (20). */
const MAX_HEADER_BYTES = 32;

/** The packs of one repository, opened on first use; `close()` releases their file descriptors. */
export class PackStore {
  private packs: PackIndex[] | undefined;

  constructor(private readonly gitdir: string) {}

  /** The object with id `oid` from any pack, or undefined when no pack has it. `resolveBase` reads a REF_DELTA base stored elsewhere (loose). */
  read(oid: string, resolveBase: (oid: string) => GitObject | undefined = () => undefined): GitObject | undefined {
    const key = Buffer.from(oid, 'hex');
    if (key.length !== 20) return undefined;
    for (const pack of this.list()) {
      const offset = findOffset(pack, key);
      if (offset !== undefined) return this.readAt(pack, offset, resolveBase);
    }
    return undefined;
  }

  close(): void {
    for (const pack of this.packs ?? []) if (pack.fd !== undefined) closeSync(pack.fd);
    this.packs = undefined;
  }

  private list(): PackIndex[] {
    if (this.packs) return this.packs;
    const dir = path.join(this.gitdir, 'objects', 'pack');
    let names: string[];
    try {
      names = readdirSync(dir).filter((name) => name.endsWith('.idx')).sort();
    } catch {
      names = [];
    }
    this.packs = [];
    for (const name of names) {
      const idx = readFileSync(path.join(dir, name));
      // Version 1 indexes (written by git before 1.5.2, 2007) are skipped: their objects read as missing, with that error.
      if (idx.length < 8 + 256 * 4 || idx.readUInt32BE(0) !== IDX_MAGIC || idx.readUInt32BE(4) !== 2) continue;
      this.packs.push({ packPath: path.join(dir, `${name.slice(0, -'.idx'.length)}.pack`), idx, count: idx.readUInt32BE(8 + 255 * 4), packSize: 0, fd: undefined });
    }
    return this.packs;
  }

  /** Inflates the data at `start` of `bytes` (read from `offset`); a stream longer than zlib's bound (another compressor) is read again to the pack's end. */
  private inflateAt(pack: PackIndex, offset: number, bytes: Buffer, start: number, size: number): Buffer {
    let out: Buffer;
    try {
      out = inflateSync(bytes.subarray(start));
    } catch (error) {
      if (bytes.length >= pack.packSize - 20 - offset) throw new Error(`git pack ${pack.packPath}: the object at offset ${offset} cannot be inflated (${(error as Error).message})`);
      return this.inflateAt(pack, offset, this.readBytes(pack, offset, pack.packSize), start, size);
    }
    if (out.length !== size) throw new Error(`git pack ${pack.packPath}: the object at offset ${offset} inflated to ${out.length} bytes, its header says ${size}`);
    return out;
  }

  private readBytes(pack: PackIndex, offset: number, length: number): Buffer {
    const bytes = Buffer.allocUnsafe(Math.max(0, Math.min(length, pack.packSize - 20 - offset)));
    const read = readSync(pack.fd!, bytes, 0, bytes.length, offset);
    return bytes.subarray(0, read);
  }

  private readAt(pack: PackIndex, offset: number, resolveBase: (oid: string) => GitObject | undefined): GitObject {
    if (pack.fd === undefined) {
      pack.fd = openSync(pack.packPath, 'r');
      pack.packSize = fstatSync(pack.fd).size;
    }
    // The index does not say where an object ends; its compressed data is at most zlib's bound for its size,
    // and inflating stops at the end of the stream, so reading that much (or up to the trailing checksum) is enough.
    const header = this.readBytes(pack, offset, MAX_HEADER_BYTES);
    let pos = 0;
    let byte = header[pos++]!;
    const typeCode = (byte >> 4) & 7;
    let size = byte & 15;
    for (let shift = 4; byte & 0x80; shift += 7) {
      byte = header[pos++]!;
      size += (byte & 0x7f) * 2 ** shift;
    }
    const bytes = this.readBytes(pack, offset, MAX_HEADER_BYTES + deflateBound(size));
    if (typeCode === OFS_DELTA) {
      byte = bytes[pos++]!;
      let distance = byte & 0x7f;
      while (byte & 0x80) {
        byte = bytes[pos++]!;
        distance = (distance + 1) * 128 + (byte & 0x7f);
      }
      const base = this.readAt(pack, offset - distance, resolveBase);
      return { type: base.type, content: applyDelta(base.content, this.inflateAt(pack, offset, bytes, pos, size)) };
    }
    if (typeCode === REF_DELTA) {
      const baseOid = bytes.toString('hex', pos, pos + 20);
      const base = this.read(baseOid, resolveBase) ?? resolveBase(baseOid);
      if (!base) throw new Error(`git pack ${pack.packPath}: the delta base ${baseOid} of the object at offset ${offset} is missing`);
      return { type: base.type, content: applyDelta(base.content, this.inflateAt(pack, offset, bytes, pos + 20, size)) };
    }
    const type = TYPES[typeCode];
    if (!type) throw new Error(`git pack ${pack.packPath}: unknown object type ${typeCode} at offset ${offset}`);
    return { type, content: this.inflateAt(pack, offset, bytes, pos, size) };
  }
}

/** Binary search of `key` among the index's sorted ids, within the range its first byte's fan-out entry gives. */
function findOffset(pack: PackIndex, key: Buffer): number | undefined {
  const { idx } = pack;
  const fanout = 8;
  const first = key[0]!;
  let low = first === 0 ? 0 : idx.readUInt32BE(fanout + (first - 1) * 4);
  let high = idx.readUInt32BE(fanout + first * 4);
  const ids = fanout + 256 * 4;
  while (low < high) {
    const mid = (low + high) >>> 1;
    const order = idx.compare(key, 0, 20, ids + mid * 20, ids + mid * 20 + 20);
    if (order === 0) return offsetAt(pack, mid);
    if (order < 0) low = mid + 1;
    else high = mid;
  }
  return undefined;
}

function offsetAt(pack: PackIndex, position: number): number {
  const { idx, count } = pack;
  const offsets = 8 + 256 * 4 + count * 24;
  const small = idx.readUInt32BE(offsets + position * 4);
  if (!(small & 0x80000000)) return small;
  const large = offsets + count * 4 + (small & 0x7fffffff) * 8;
  return idx.readUInt32BE(large) * 2 ** 32 + idx.readUInt32BE(large + 4);
}

/** zlib's `deflateBound`: the most bytes deflating `size` bytes can take (stored blocks, header and checksum). */
function deflateBound(size: number): number {
  return size + Math.floor(size / 4096) + Math.floor(size / 16384) + Math.floor(size / 33554432) + 13 + 6;
}


/** Applies a git delta (source size, target size, then copy and insert instructions) to `base`. */
export function applyDelta(base: Buffer, delta: Buffer): Buffer {
  let pos = 0;
  const varint = (): number => {
    let value = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = delta[pos++]!;
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return value;
  };
  const sourceSize = varint();
  if (sourceSize !== base.length) throw new Error(`git delta: expects a base of ${sourceSize} bytes, got ${base.length}`);
  const out = Buffer.allocUnsafe(varint());
  let written = 0;
  while (pos < delta.length) {
    const op = delta[pos++]!;
    if (op & 0x80) {
      let copyOffset = 0;
      let copySize = 0;
      for (let bit = 0; bit < 4; bit++) if (op & (1 << bit)) copyOffset += delta[pos++]! * 2 ** (8 * bit);
      for (let bit = 0; bit < 3; bit++) if (op & (0x10 << bit)) copySize += delta[pos++]! << (8 * bit);
      if (copySize === 0) copySize = 0x10000;
      written += base.copy(out, written, copyOffset, copyOffset + copySize);
    } else if (op > 0) {
      written += delta.copy(out, written, pos, pos + op);
      pos += op;
    } else {
      throw new Error('git delta: reserved instruction 0');
    }
  }
  if (written !== out.length) throw new Error(`git delta: produced ${written} bytes, expected ${out.length}`);
  return out;
}
