// Drafts and publishing (docs/lifecycle.md): a record of a model with drafts has a working copy and at most one
// published copy. The rules over them, with no I/O.
import { ServiceError } from './errors.js';
import { parseDateTime } from './date-time.js';
import { deepEqual } from '../shared/json.js';
import { SCHEDULE_ACTIONS, type RecordStatus, type ScheduleAction } from '../shared/lifecycle.js';

export { SCHEDULE_ACTIONS, type RecordStatus, type ScheduleAction };

/** The most ids one publish, unpublish or schedule takes. */
export const MAX_PUBLISH_IDS = 1000;
/** How far ahead a schedule may be set. */
export const MAX_SCHEDULE_YEARS = 5;

/**
 * `draft`: never published, or unpublished; `published`: the working copy's data equals the published copy's (deep
 * JSON equality: a value changed and changed back reads published again); `changed`: published, and differing.
 */
export function recordStatus(working: unknown, published: unknown): RecordStatus {
  if (published === null || published === undefined) return 'draft';
  return deepEqual(working, published) ? 'published' : 'changed';
}

/** The ids of a publish or unpublish, each once, in their order; refused when there are more than the limit. */
export function publishIds(ids: readonly string[], field = 'ids'): string[] {
  if (ids.length > MAX_PUBLISH_IDS) {
    throw new ServiceError('BAD_USER_INPUT', `${field}: at most ${MAX_PUBLISH_IDS} ids, got ${ids.length}`, { field });
  }
  return [...new Set(ids)];
}

export interface ScheduleInput {
  ids: readonly string[];
  action: string;
  at: string;
}

/** A schedule's input checked: a known action, a time in the future and at most five years ahead, the ids. */
export function checkSchedule(input: ScheduleInput, now: number): { ids: string[]; action: ScheduleAction; at: number } {
  if (!(SCHEDULE_ACTIONS as readonly string[]).includes(input.action)) {
    throw new ServiceError('BAD_USER_INPUT', `input.action: expected publish or unpublish, got "${input.action}"`, {
      field: 'input.action',
    });
  }
  const at = parseDateTime(input.at);
  if (Number.isNaN(at)) {
    throw new ServiceError('BAD_USER_INPUT', `input.at: expected an ISO 8601 date-time, got "${input.at}"`, {
      field: 'input.at',
    });
  }
  if (at <= now) throw new ServiceError('BAD_USER_INPUT', 'input.at: must be in the future', { field: 'input.at' });
  const latest = new Date(now);
  latest.setUTCFullYear(latest.getUTCFullYear() + MAX_SCHEDULE_YEARS);
  if (at > latest.getTime()) {
    throw new ServiceError('BAD_USER_INPUT', `input.at: at most ${MAX_SCHEDULE_YEARS} years ahead`, { field: 'input.at' });
  }
  if (input.ids.length === 0) throw new ServiceError('BAD_USER_INPUT', 'input.ids: give at least one id', { field: 'input.ids' });
  return { ids: publishIds(input.ids, 'input.ids'), action: input.action as ScheduleAction, at };
}

/** Drafts cannot be turned off while records are not published as they are. */
export function draftsStillInUse(unpublished: number): ServiceError {
  return new ServiceError(
    'CONFLICT',
    `drafts: ${unpublished} ${unpublished === 1 ? 'record is' : 'records are'} not published as ${unpublished === 1 ? 'it is' : 'they are'}; publish them or discard their changes first`,
    { field: 'drafts' },
  );
}
