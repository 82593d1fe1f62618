/**
 * A daily's source list and dropped items are most of its entry (~10 KB of
 * 11), yet a build reads them only for the few summaries it works on. In the
 * entry they are their length (keeping the key's place among the metadata; the
 * index lists every summary's number of sources, `listLength`); on load they
 * become properties that read `parse_lists` the first time one is read.
 */
export const LIST_KEYS = ['sources', 'dropped'] as const;

/** Lengths of the lists of metadata whose lists are not read yet. */
const lazyLengths = new WeakMap<object, Record<string, number>>();

/** The length of a list of a summary's metadata, read from the store only if its length was not stored. */
export function listLength(meta: object, name: (typeof LIST_KEYS)[number]): number {
  const { get, value } = Object.getOwnPropertyDescriptor(meta, name) ?? {};
  const length = get ? lazyLengths.get(meta)?.[name] : undefined;
  return length ?? (Array.isArray(value) ? value.length : ((meta as Record<string, unknown[] | undefined>)[name]?.length ?? 0));
}

/** Turns the list keys of `meta` (placeholders) into properties that read all lists at the first read of one, then are plain values. */
export function defineLazyLists(meta: object, read: () => Record<string, unknown>): void {
  const present = LIST_KEYS.filter((name) => Object.hasOwn(meta, name));
  const lengths: Record<string, number> = {};
  for (const name of present) lengths[name] = (meta as Record<string, number>)[name]!;
  lazyLengths.set(meta, lengths);
  const settle = (values: Record<string, unknown>): void => {
    for (const name of present)
      Object.defineProperty(meta, name, { value: values[name], configurable: true, enumerable: true, writable: true });
  };
  for (const name of present) {
    Object.defineProperty(meta, name, {
      configurable: true,
      enumerable: true,
      get() {
        settle(read());
        return (meta as Record<string, unknown>)[name];
      },
      set(value: unknown) {
        // A write before any read: the other lists still come from the store.
        const values = read();
        values[name] = value;
        settle(values);
      },
    });
  }
}
