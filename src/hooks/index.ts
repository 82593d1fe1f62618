export { HOOK_EVENTS, parseHookInput, type HookEvent, type HookInput } from './input.js';
export { ingestTranscript } from './ingest-transcript.js';
export { sessionStart, type SessionStartResult } from './session-start.js';
