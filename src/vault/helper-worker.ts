import { parentPort, type MessagePort } from 'node:worker_threads';
import { countTokens } from '../util/tokens.js';
import type { AsyncReply, AsyncRequest, SyncReply, SyncRequest } from './helper.js';
import { scanStreams, toColumns } from './scan.js';

/**
 * The build helper's thread (see helper.ts): scans when asked, loads the
 * tokenizer when told something changed, and counts tokens. Requests come
 * asynchronously on `parentPort` and synchronously on the connected port,
 * each synchronous answer followed by a notify on the shared flag the main
 * thread waits on.
 */

const DEFAULT_TOKENIZER = 'o200k_base';

function answer(request: AsyncRequest): unknown {
  if (request.op === 'scan') return toColumns(scanStreams(request.vaultDir, request.streams));
  // 'warm': load the tables now, so the first count does not wait for them.
  return countTokens('Loads the tables once.', request.tokenizer ?? DEFAULT_TOKENIZER);
}

parentPort?.on('message', (message: AsyncRequest | { op: 'connect'; port: MessagePort; flag: Int32Array }) => {
  if (message.op === 'connect') {
    const { port, flag } = message;
    port.on('message', (request: SyncRequest) => {
      let reply: SyncReply;
      try {
        reply = { ok: true, value: countTokens(request.text, request.tokenizer) };
      } catch (error) {
        reply = { ok: false, error: (error as Error).message };
      }
      port.postMessage(reply);
      Atomics.store(flag, 0, 1);
      Atomics.notify(flag, 0);
    });
    return;
  }
  let reply: AsyncReply;
  try {
    reply = { id: message.id, ok: true, value: answer(message) };
  } catch (error) {
    reply = { id: message.id, ok: false, error: (error as Error).message };
  }
  parentPort?.postMessage(reply);
});
