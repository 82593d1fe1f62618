import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { FileRole } from './paths.js';
import { parseVaultFile, type ParsedFile } from './parse-file.js';
import type { ParseBatch } from './parse-worker.js';

/**
 * Parses many files on all cores. Markdown parsing (remark) is the main cost
 * of a cold build, ~2 ms per memory; below `MIN_FILES_FOR_WORKERS` files the
 * workers' start-up (~150 ms) is not worth it and parsing stays in-process.
 */
export const MIN_FILES_FOR_WORKERS = 300;

export interface FileToParse {
  vaultPath: string;
  role: FileRole;
  bytes: Uint8Array;
}

export async function parseFiles(files: readonly FileToParse[], timezone: string): Promise<ParsedFile[]> {
  const workerUrl = new URL('./parse-worker.js', import.meta.url);
  const workers = Math.min(availableParallelism(), 8);
  // Under vitest the sources are TypeScript and the compiled worker does not exist: parse in-process.
  if (files.length < MIN_FILES_FOR_WORKERS || workers < 2 || !existsSync(fileURLToPath(workerUrl))) {
    return files.map((file) => parseVaultFile(file.bytes, file.vaultPath, file.role, timezone));
  }
  const chunks: FileToParse[][] = Array.from({ length: workers }, () => []);
  // Contiguous chunks keep each worker's files in one folder region (better locality); order is restored below.
  const size = Math.ceil(files.length / workers);
  files.forEach((file, i) => chunks[Math.floor(i / size)]!.push(file));
  const results = await Promise.all(chunks.filter((chunk) => chunk.length > 0).map((chunk) => runWorker(workerUrl, { timezone, files: chunk })));
  return results.flat();
}

function runWorker(url: URL, batch: ParseBatch): Promise<ParsedFile[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(url);
    worker.once('message', (results: ParsedFile[]) => {
      resolve(results);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.postMessage(batch);
  });
}
