// Deletes the records selected in the records table. The admin API has no batch delete, so one `record.delete`
// per record, one at a time, in the order of the table. A record other records still point at is not forced
// (its own page offers that, with its explanation): it is reported, as is any other refusal, and the run goes on.
// A 429 (a write budget, which the session's writes are not charged against today) is waited out as long as
// Retry-After says and the record sent again; a lost connection stops the run, saying how far it got.
import { ApiError, gql } from './api.js';
import { errorText } from './ui.js';

export interface BulkTarget {
  id: string;
  name: string;
}

export interface BulkFailure extends BulkTarget {
  message: string;
}

export interface BulkDeleteOutcome {
  deleted: BulkTarget[];
  failed: BulkFailure[];
  /** Not tried: the run stopped (a lost connection) before them. */
  notTried: BulkTarget[];
  stopped?: string;
}

export interface BulkDeleteOptions {
  onProgress?: (done: number, total: number) => void;
  /** A 429 is being waited out for `seconds`. */
  onWait?: (seconds: number) => void;
  sleep?: (ms: number) => Promise<void>;
  /** How many 429s in a row one record may get before it is reported as failed. */
  maxWaits?: number;
}

const MUTATION = 'mutation DeleteRecord($id: ID!) { record { delete(id: $id, force: false) { id deleted } } }';

function failureText(error: unknown): string {
  if (error instanceof ApiError && error.code === 'CONFLICT') {
    return 'other records still link to it; open it to delete it and remove those links';
  }
  return errorText(error);
}

export async function deleteSelected(
  targets: readonly BulkTarget[],
  options: BulkDeleteOptions = {},
): Promise<BulkDeleteOutcome> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const maxWaits = options.maxWaits ?? 5;
  const outcome: BulkDeleteOutcome = { deleted: [], failed: [], notTried: [] };
  for (let index = 0; index < targets.length; index++) {
    const target = targets[index]!;
    for (let waits = 0; ; waits++) {
      try {
        await gql(MUTATION, { id: target.id });
        outcome.deleted.push(target);
        break;
      } catch (error) {
        if (error instanceof ApiError && error.status === 429 && waits < maxWaits) {
          const seconds = Math.max(1, Math.ceil(error.retryAfter ?? 1));
          options.onWait?.(seconds);
          await sleep(seconds * 1000);
          continue;
        }
        if (error instanceof ApiError && error.code === 'NETWORK') {
          outcome.stopped = `${errorText(error)} Stopped after ${index} of ${targets.length} records.`;
          outcome.notTried.push(...targets.slice(index));
          return outcome;
        }
        if (error instanceof ApiError && error.code === 'NOT_FOUND') {
          // Deleted meanwhile (another tab, another user): what was asked for is done.
          outcome.deleted.push(target);
          break;
        }
        outcome.failed.push({ ...target, message: failureText(error) });
        break;
      }
    }
    options.onProgress?.(index + 1, targets.length);
  }
  return outcome;
}
