// Comparing record data without caring about key order: PostgreSQL jsonb returns object keys in its own order,
// so JSON.stringify of two equal values may differ.
// Also compiled into the admin web application (via cells.ts): nothing Node-only.

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Structural equality of JSON values; object key order does not matter, array order does. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') {
    return typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b);
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => deepEqual(item, b[index]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const leftKeys = Object.keys(left).filter((key) => left[key] !== undefined);
  const rightKeys = Object.keys(right).filter((key) => right[key] !== undefined);
  if (leftKeys.length !== rightKeys.length) return false;
  return leftKeys.every((key) => Object.prototype.hasOwnProperty.call(right, key) && deepEqual(left[key], right[key]));
}

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
export function mergeDiff(current: Record<string, unknown>, desired: Record<string, unknown>): Record<string, unknown> | undefined {
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
