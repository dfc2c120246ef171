// What a model's stored records must allow for a change of its definition, and the refusal when they do not. The
// stores check it inside the change's transaction, after locking the model's row (so no record write comes between
// the check and the change); a dry run checks it without the lock.
import { ServiceError } from '../domain/errors.js';
import type { StoredValueCheck } from './store.js';

/** The refusal of the change when `withValue` of the model's `recordCount` records hold a value under the key; else null. */
export function storedValueConflict(check: StoredValueCheck, recordCount: number, withValue: number): ServiceError | null {
  const conflict = (reason: string) => new ServiceError('CONFLICT', `${check.fieldKey}: ${reason}`, { field: check.fieldKey });
  if (check.expect === 'no-values') {
    return withValue > 0 ? conflict(`cannot change the type or its settings while ${withValue} records have a value`) : null;
  }
  const missing = recordCount - withValue;
  return missing > 0 ? conflict(`cannot become required: ${missing} stored records have no value`) : null;
}
