export {
  checkRetention,
  collectMustKeep,
  compareMissing,
  droppedText,
  indexOutput,
  isKept,
  MAX_NAMED_MISSING,
  SENTENCE_SHARE,
  type OutputIndex,
  type RetentionResult,
} from './check.js';
export { formatLongDate, formatMonth, resolveRelativeDates } from './dates.js';
export {
  canonicalDate,
  datesOf,
  extractMustKeep,
  itemKey,
  itemsOfSentence,
  KIND_ORDER,
  mustKeepOfSentences,
  namesOf,
  normalizeForMatch,
  orderItems,
  SENTENCE_KINDS,
  type MustKeepItem,
  type MustKeepKind,
} from './items.js';
