import { UserError } from '../util/errors.js';

/** The error of a read naming a stream the vault does not have (zoom, context, search, status, facts: one wording). */
export function noSuchStream(name: string, known: readonly string[]): UserError {
  return new UserError('read/stream', `no stream \`${name}\` in the vault`, { known: known.join(', ') || 'none' });
}
