import { ChecksOutdated } from '../store/conflicts.js';

/** Attempts at most, each one reading and checking afresh; a write refused this often is refused (ChecksOutdated). */
const MAX_ATTEMPTS = 10;

/**
 * Runs `attempt` (read the model and whatever else the data is checked against, check, write) again each time the
 * store refuses its write as checked against something that changed after the check. So the client gets what its
 * data earns against the definition and records as they are when it is written: the refusal (in the words of the
 * usual checks) or the write.
 */
export async function checkedAgain<T>(attempt: () => Promise<T>): Promise<T> {
  for (let attempts = 1; ; attempts++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof ChecksOutdated) || attempts >= MAX_ATTEMPTS) throw error;
    }
  }
}
