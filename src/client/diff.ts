// What a sync sends for a record: the merge patch from the stored data to the wanted one, compared without
// caring about key order (PostgreSQL jsonb returns object keys in its own order).
// Also compiled into the admin web application (tsconfig.admin-ui.json): nothing Node-only.
import { deepEqual, isPlainObject } from '../shared/json.js';

/**
 * A copy of a data object without its `null` and `undefined` members (top level only: what a create stores;
 * values inside an object field are data and stay as they are).
 */
export function stripNulls<T extends Record<string, unknown>>(value: T): T {
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (item === null || item === undefined) continue;
    result[key] = item;
  }
  return result as T;
}

/**
 * The smallest JSON merge patch (RFC 7386) that brings `current` to what applying `desired` as a merge patch
 * would give: members of `desired` equal to the stored ones are left out, `null` is kept only where something is
 * stored, objects are compared member by member (a translatable or object field merges key by key on the
 * server). Returns undefined when nothing would change.
 */
export function mergeDiff(
  current: Record<string, unknown>,
  desired: Record<string, unknown>,
): Record<string, unknown> | undefined {
  const patch: Record<string, unknown> = {};
  let changed = false;
  for (const [key, want] of Object.entries(desired)) {
    if (want === undefined) continue;
    const has = Object.prototype.hasOwnProperty.call(current, key) && current[key] !== null && current[key] !== undefined;
    const stored = has ? current[key] : undefined;
    if (want === null) {
      if (has) {
        patch[key] = null;
        changed = true;
      }
    } else if (isPlainObject(want) && isPlainObject(stored)) {
      const sub = mergeDiff(stored, want);
      if (sub !== undefined) {
        patch[key] = sub;
        changed = true;
      }
    } else if (isPlainObject(want)) {
      if (!has && Object.values(want).every((item) => item === null)) continue;
      patch[key] = want;
      changed = true;
    } else if (!deepEqual(stored, want)) {
      patch[key] = want;
      changed = true;
    }
  }
  return changed ? patch : undefined;
}
