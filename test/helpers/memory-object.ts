import type { Memory } from '../../src/vault/model.js';

/** A loaded memory as the usage code sees it, without a file: `<stream>/memories/<id>.md` unless a path is given. */
export function memoryAt(stream: string, id: string, vaultPath = `${stream}/memories/${id}.md`): Memory {
  return {
    id,
    stream,
    path: vaultPath,
    location: 'memories',
    date: '2026-02-13',
    day: '2026-02-13',
    minute: 0,
    title: undefined,
    kind: 'note',
    tags: [],
    importance: 'normal',
    sha256: '0'.repeat(64),
  };
}
