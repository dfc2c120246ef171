import { isPlainObject } from '../shared/json.js';

/**
 * JSON Merge Patch (RFC 7386): objects merge key by key, recursively; `null` removes a key;
 * anything else replaces the target. Never mutates its arguments.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch;
  const result: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete result[key];
    } else {
      Object.defineProperty(result, key, {
        value: mergePatch(Object.hasOwn(result, key) ? result[key] : undefined, value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return result;
}
