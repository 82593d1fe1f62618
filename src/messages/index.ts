export { fill, hintFor, placeholders, RULES, RULES_DOC, type RuleId, ruleAnchor, ruleSpec, ruleUrl } from './catalogue.js';
export { diagnostic, type FailureMessage, formatDiagnostic, formatFailure, type MessageOptions } from './diagnostic.js';
export { type Diagnostic, type Facts, MESSAGE_SOURCE, type Place, type Point, type Severity } from './message.js';
export type { RuleGroup, RuleSpec } from './rule.js';
