import { parentPort } from 'node:worker_threads';
import type { FileRole } from './paths.js';
import { parseVaultFile, type ParsedFile } from './parse-file.js';

/** A parse worker: receives batches of files, answers with their parse results in the same order. */
export interface ParseBatch {
  timezone: string;
  files: { vaultPath: string; role: FileRole; bytes: Uint8Array }[];
}

parentPort?.on('message', (batch: ParseBatch) => {
  const results: ParsedFile[] = batch.files.map((file) => parseVaultFile(file.bytes, file.vaultPath, file.role, batch.timezone));
  parentPort?.postMessage(results);
});
