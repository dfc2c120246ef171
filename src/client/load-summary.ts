// The running summary of a load, and the progress reported from it.
import type { ContentServiceError } from './errors.js';
import type { ImportOptions, LoadProgress, LoadSummary } from './load-types.js';

/** The summary while the run goes on, with the progress last reported. */
export type RunningSummary<T> = LoadSummary<T> & { progress: LoadProgress };

export interface ProgressReporter<T> {
  /** Reports the progress (when the caller asked for it). */
  tick(): void;
  /** Settles the summary, reports `done` and returns the summary. */
  finish(stopped: ContentServiceError | undefined): LoadSummary<T>;
}

export function newSummary<T>(dryRun: boolean): RunningSummary<T> {
  return {
    total: 0,
    created: 0,
    updated: 0,
    unchanged: 0,
    deleted: 0,
    failed: 0,
    errors: [],
    stopped: undefined,
    ok: false,
    dryRun,
    duplicateKeysInStore: 0,
    progress: { phase: 'writing', existing: 0, read: 0, created: 0, updated: 0, unchanged: 0, deleted: 0, failed: 0 },
  };
}

export function progressReporter<T>(summary: RunningSummary<T>, options: ImportOptions<T>): ProgressReporter<T> {
  const sync = () => {
    const p = summary.progress;
    p.updated = summary.updated;
    p.unchanged = summary.unchanged;
    p.deleted = summary.deleted;
    p.failed = summary.failed;
    if (summary.dryRun) p.created = summary.created;
  };
  return {
    tick: () => {
      if (!options.onProgress) return;
      sync();
      options.onProgress({ ...summary.progress });
    },
    finish: (stopped: ContentServiceError | undefined): LoadSummary<T> => {
      summary.stopped = stopped;
      summary.ok = !stopped && summary.failed === 0;
      sync();
      summary.progress.phase = 'done';
      if (!summary.dryRun) summary.progress.created = summary.created;
      options.onProgress?.({ ...summary.progress });
      const { progress: _progress, ...result } = summary;
      return result;
    },
  };
}
