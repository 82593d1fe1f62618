import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import matter from 'gray-matter';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { listMarkdownFiles } from '../src/vault/scan.js';

/**
 * The floor of any remark-based build, for the benchmark (`npm run bench`):
 * reads every `.md` file under a folder, splits off its frontmatter
 * (gray-matter) and parses the body into mdast (unified + remark-parse), and
 * does nothing else: no validation, sentences, summaries or writes. The
 * bench times this process next to Eleventy on the same files, so the
 * report shows how much of Eleventy's time remark's parse alone takes.
 *
 * Usage: node dist/scripts/parse-floor.js <folder> [--threads N]
 * With N > 1 the files are dealt to N worker threads in contiguous chunks, as
 * the build's parse pool does.
 */

interface Chunk {
  files: string[];
}

function parseAll(files: readonly string[]): number {
  const processor = unified().use(remarkParse).freeze();
  let nodes = 0;
  for (const file of files) nodes += processor.parse(matter(readFileSync(file, 'utf8')).content).children.length;
  return nodes;
}

function runWorker(chunk: Chunk): Promise<number> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: chunk });
    worker.once('message', (nodes: number) => resolve(nodes));
    worker.once('error', reject);
  });
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { threads: { type: 'string', default: '1' } } });
  const dir = positionals[0];
  const threads = Number(values.threads);
  if (dir === undefined || !Number.isInteger(threads) || threads < 1) {
    console.error('usage: node dist/scripts/parse-floor.js <folder> [--threads N]');
    process.exit(2);
  }
  const files = listMarkdownFiles(dir).map((file) => path.join(dir, file));
  let nodes: number;
  if (threads === 1) {
    nodes = parseAll(files);
  } else {
    const size = Math.ceil(files.length / threads);
    const chunks = Array.from({ length: threads }, (_, i) => ({ files: files.slice(i * size, (i + 1) * size) }));
    nodes = (await Promise.all(chunks.map(runWorker))).reduce((sum, n) => sum + n, 0);
  }
  // The node count proves the trees were built (and keeps the work from being optimised away).
  console.log(JSON.stringify({ files: files.length, threads, nodes }));
}

if (isMainThread) await main();
else parentPort?.postMessage(parseAll((workerData as Chunk).files));
