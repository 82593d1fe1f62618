import { addOperation } from './add.js';
import { contextOperation } from './context.js';
import { factsOperation } from './facts.js';
import { logOperation, showOperation } from './history.js';
import type { AnyOperation } from './operation.js';
import { resolveOperation } from './resolve.js';
import { searchOperation } from './search.js';
import { statusOperation } from './status.js';
import { zoomOperation } from './zoom.js';

/**
 * Every operation, in the order docs/operations.md lists them. The MCP server
 * offers those with a `tool` (context, search, zoom, add_memory, status,
 * facts); the CLI runs each as the command of its `name`.
 */
export const OPERATIONS: readonly AnyOperation[] = [
  contextOperation,
  searchOperation,
  zoomOperation,
  addOperation,
  statusOperation,
  factsOperation,
  resolveOperation,
  logOperation,
  showOperation,
];
