/**
 * Cuts `text` at a word boundary to at most `max` characters, with `…` when
 * cut (the ellipsis counts); whitespace runs become one space. A first word
 * longer than half of `max` is cut inside. Pure.
 *
 * @example
 *   shorten('Moved the billing database to MySQL', 20) // 'Moved the billing…'
 */
export function shorten(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,.;:]+$/, '')}…`;
}
