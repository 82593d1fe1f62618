import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';

let counter = 0;

/**
 * Writes a file atomically: the content goes to a temporary file beside the
 * target, is flushed, then renamed over it. A crash leaves either the old or
 * the new file, never a half-written one.
 */
export function writeFileAtomic(file: string, content: string | Uint8Array, options: { fsync?: boolean } = {}): void {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${counter++}.tmp`);
  const fd = openSync(temp, 'w');
  try {
    writeSync(fd, typeof content === 'string' ? Buffer.from(content, 'utf8') : content);
    if (options.fsync) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
