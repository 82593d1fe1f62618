export { formatUsageFile, parseUsageFile, usageTotals, type UsageCount, type UsageFile } from './codec.js';
export { foldUsage, usageKey, usagePath, USAGE_FILE } from './fold.js';
export { readUsageLog, recordUsage, type UsageEvent } from './log.js';
export { readUsage, readUsageFile } from './read.js';
export { usageBoost, usageFactor, MAX_USAGE_BOOST } from './boost.js';
