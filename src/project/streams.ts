import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isMap, parseDocument } from 'yaml';
import { CONFIG_FILE } from '../config/file.js';
import { assertStreamName, type Config } from '../config/schema.js';
import { writeFileAtomic } from '../util/atomic.js';
import { UserError } from '../util/errors.js';

/**
 * Streams a command may write to: the ones `memory.config.yaml` declares.
 * A stream named on the command line that the config does not declare is
 * refused (a typo would start a stream of its own), unless the caller asked
 * to create it: then it is added to the config, comments and layout kept.
 */

/** The settings a stream created from the command line gets: a calendar stream, as `memvault init` writes the first one. */
export const NEW_STREAM = { calendar: true, waterfall: false } as const;

/**
 * Checks `stream` against the config: returns true when it is declared,
 * false when it is not but `create` allows adding it; throws `add/stream`
 * (listing the declared streams) otherwise.
 */
export function checkDeclaredStream(config: Config, stream: string, create: boolean): boolean {
  assertStreamName(stream);
  if (Object.hasOwn(config.streams, stream)) return true;
  if (create) return false;
  const streams = Object.keys(config.streams);
  throw new UserError('add/stream', `stream \`${stream}\` is not declared in ${CONFIG_FILE} (streams: ${streams.join(', ') || 'none'})`, {
    streams: streams.join(', ') || '(none)',
  });
}

/**
 * Adds `stream` to the `streams:` map of the project's config file, keeping
 * every comment and the rest of the file as written. A config without a
 * `streams:` key (all defaults) gets one listing the streams it had by
 * default too, so adding one stream never drops another.
 */
export function declareStream(root: string, config: Config, stream: string): void {
  assertStreamName(stream);
  const file = path.join(root, CONFIG_FILE);
  const doc = parseDocument(readFileSync(file, 'utf8'));
  const streams = doc.get('streams');
  if (isMap(streams)) {
    streams.set(stream, doc.createNode({ ...NEW_STREAM }, { flow: true }));
  } else {
    const all: Record<string, unknown> = {};
    for (const [name, settings] of Object.entries(config.streams))
      all[name] = { calendar: settings.calendar, waterfall: settings.waterfall };
    all[stream] = { ...NEW_STREAM };
    doc.set('streams', doc.createNode(all));
  }
  writeFileAtomic(file, doc.toString());
}
