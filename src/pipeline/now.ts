import { minuteOfDay, todayIn } from '../time/periods.js';
import type { Memory } from '../vault/model.js';

/** True when the memory is dated up to `now` in `timezone` (same day: up to the same minute). */
export function isUpTo(memory: Memory, day: string, minute: number): boolean {
  return memory.day < day || (memory.day === day && memory.minute <= minute);
}

/** Memories dated up to `now`: a build as of a past moment sees the stream as it was then. */
export function memoriesUpTo(memories: readonly Memory[], now: Date, timezone: string): Memory[] {
  const day = todayIn(now, timezone);
  const minute = minuteOfDay(now, timezone);
  return memories.filter((memory) => isUpTo(memory, day, minute));
}
