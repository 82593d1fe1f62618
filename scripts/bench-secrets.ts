import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { findSecrets } from '../src/redact/detect.js';
import { listMarkdownFiles } from '../src/vault/scan.js';
import { parseMemoryFile } from '../src/vault/memory-file.js';
import { generateSyntheticVault } from './fixtures/synthetic-vault.js';

/**
 * What the secret scan costs a cold build: CPU time of the detector over every
 * memory of the synthetic bench vault, next to the parse it is part of, on
 * one thread (a cold build spreads both over the worker threads).
 *
 * Usage: node dist/scripts/bench-secrets.js [DIR] [MEMORIES]   (default /tmp/memvault-bench-secrets, 4000)
 */
const dir = process.argv[2] ?? '/tmp/memvault-bench-secrets';
const memories = Number(process.argv[3] ?? 4000);
if (!existsSync(path.join(dir, 'vault')))
  generateSyntheticVault(dir, { memories, days: 1095, endDay: '2026-11-20', seed: 20_261_120, pinned: 3 });
const vault = path.join(dir, 'vault');
const files = listMarkdownFiles(vault).filter((file) => file.includes('/memories/'));
const bytes = files.map((file) => readFileSync(path.join(vault, file)));
const cpu = (run: () => void): number => {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};
// One warm-up pass each: the first calls compile the regexes and load remark.
findSecrets(bytes[0]!.toString('utf8'));
parseMemoryFile(bytes[0]!, { path: files[0]!, stream: 'main', location: 'memories', relativeId: 'x' }, 'UTC');
let found = 0;
const scanMs = cpu(() => {
  for (const b of bytes) found += findSecrets(b.toString('utf8')).length;
});
const parseMs = cpu(() => {
  files.forEach((file, i) => parseMemoryFile(bytes[i]!, { path: file, stream: 'main', location: 'memories', relativeId: file }, 'UTC'));
});
const total = bytes.reduce((n, b) => n + b.length, 0);
process.stdout.write(
  `${files.length} memories, ${(total / 1e6).toFixed(2)} MB: secret scan ${scanMs.toFixed(0)} ms CPU (${((scanMs / files.length) * 1000).toFixed(0)} µs each, ${found} found), parse ${parseMs.toFixed(0)} ms CPU; the scan adds ${((scanMs / parseMs) * 100).toFixed(0)}% to the parse\n`,
);
