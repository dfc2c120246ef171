// The writes of a sync that may be sent again when an answer is lost.
import { ContentServiceError } from './errors.js';
import type { LoaderClient } from './load-types.js';
import type { JsonObject } from './types.js';

/** A merge patch applied twice gives the same result, so a patch without an answer may be sent again. */
export async function patchWithRetry(client: LoaderClient, id: string, patch: JsonObject, signal?: AbortSignal): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await client.patchRecord(id, patch, signal);
      return;
    } catch (error) {
      if (!(error instanceof ContentServiceError) || !error.outcomeUnknown || attempt >= 2) throw error;
    }
  }
}

/** A delete without an answer is sent again; NOT_FOUND then means the first one landed. */
export async function deleteWithRetry(client: LoaderClient, id: string, signal?: AbortSignal): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await client.deleteRecord(id, signal ? { signal } : {});
      return;
    } catch (error) {
      if (attempt > 0 && error instanceof ContentServiceError && error.code === 'NOT_FOUND') return;
      if (!(error instanceof ContentServiceError) || !error.outcomeUnknown || attempt >= 2) throw error;
    }
  }
}
