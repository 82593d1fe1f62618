/**
 * Whether a process with this pid exists. `EPERM` means it exists but belongs
 * to another user: alive. Used to tell a live build's lock and temp files
 * from a killed one's.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
