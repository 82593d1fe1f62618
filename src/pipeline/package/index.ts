/**
 * Stage 6, assemble: the bounded UPLOAD_PACKAGE.md of one stream, by stage in `package/`: `model.ts` (input, manifest),
 * `items.ts` (coverage and items), `render.ts` (text), `degrade.ts` (over and under budget), `assemble.ts` (the driver).
 */
export { assemblePackage, CriticalOverBudgetError, packageInputHash, packageMemoriesDigest } from './assemble.js';
export { withoutPinnedBullets } from './items.js';
export type { AssembledPackage, ItemStatus, Manifest, ManifestItem, PackageInput } from './model.js';
