// The difference between two revisions of a record's data as an RFC 6902 JSON Patch (docs/lifecycle.md): objects
// are compared key by key, arrays and other values as whole values, and the operations are sorted by path. Each
// operation touches a different member, so applying them in order (as RFC 6902 does) turns `from` into `to`.
import { deepEqual, isPlainObject } from '../shared/json.js';

export interface JsonPatchOperation {
  op: 'add' | 'remove' | 'replace';
  /** An RFC 6901 pointer. */
  path: string;
  /** The new value (add, replace). */
  value?: unknown;
  /** The value replaced or removed (replace, remove). */
  oldValue?: unknown;
}

/** One reference token of an RFC 6901 pointer: `~` as `~0`, `/` as `~1`. */
export function pointerToken(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function collect(from: unknown, to: unknown, path: string, out: JsonPatchOperation[]): void {
  if (deepEqual(from, to)) return;
  if (!isPlainObject(from) || !isPlainObject(to)) {
    out.push({ op: 'replace', path, value: to, oldValue: from });
    return;
  }
  for (const key of Object.keys(from)) {
    if (from[key] === undefined) continue;
    const memberPath = `${path}/${pointerToken(key)}`;
    if (to[key] === undefined) out.push({ op: 'remove', path: memberPath, oldValue: from[key] });
    else collect(from[key], to[key], memberPath, out);
  }
  for (const key of Object.keys(to)) {
    if (to[key] !== undefined && from[key] === undefined)
      out.push({ op: 'add', path: `${path}/${pointerToken(key)}`, value: to[key] });
  }
}

/** The patch that turns `from` into `to`, sorted by path (code unit order). */
export function diffJson(from: unknown, to: unknown): JsonPatchOperation[] {
  const operations: JsonPatchOperation[] = [];
  collect(from, to, '', operations);
  return operations.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
