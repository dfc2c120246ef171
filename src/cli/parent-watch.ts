// `npm start` and `npx content-service serve` run the command through a shell (`sh -c`). Debian's sh (dash) stays
// between npm and this process instead of handing its place to the command, and dies of the SIGTERM or SIGINT npm
// forwards to it, which then never reaches this process. The project's .npmrc makes npm use bash, which does hand
// its place over; this watch covers the shells and setups it does not reach.

/** Whether this process was started by npm (a script or npx), whose life it should share. */
export function startedByNpm(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.npm_lifecycle_event !== undefined;
}

/** Calls `onExit` once this process's parent has exited (it then has another parent), checking every `everyMs`. */
export function watchParent(onExit: () => void, everyMs = 500): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onExit();
  }, everyMs);
  timer.unref();
}
