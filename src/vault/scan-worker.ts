import { parentPort, workerData } from 'node:worker_threads';
import { scanStreams, toColumns } from './scan.js';

/** A scan worker: walks and stats the streams named in `workerData`, answers once and exits. */
const { vaultDir, streams } = workerData as { vaultDir: string; streams: string[] };
parentPort?.postMessage(toColumns(scanStreams(vaultDir, streams)));
