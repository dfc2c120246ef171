/** Things to undo when a benchmark ends, also on Ctrl+C: temporary databases, server processes. */
const tasks = new Set<() => Promise<void> | void>();

export function onCleanup(task: () => Promise<void> | void): () => void {
  tasks.add(task);
  return () => tasks.delete(task);
}

export async function cleanupAll(): Promise<void> {
  const pending = [...tasks].reverse();
  tasks.clear();
  for (const task of pending) {
    try {
      await task();
    } catch (error) {
      console.error(`cleanup: ${(error as Error).message}`);
    }
  }
}

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    console.error(`\n${signal}: cleaning up…`);
    void cleanupAll().finally(() => process.exit(130));
  });
}
