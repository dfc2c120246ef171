// Reads by id through what a store keeps of earlier reads (SQLite: by the model's content version; PostgreSQL: a
// sole server's kept reads): the same split on both, whatever decides that a kept record is still current.
import type { StoredRecord } from '../../domain/stored-record.js';

/** The records `kept` gives for `ids` (null: kept as having none), and the ids it knows nothing of. */
export function splitByKept(
  ids: readonly string[],
  kept: (id: string) => StoredRecord | null | undefined,
): { found: StoredRecord[]; missing: string[] } {
  const found: StoredRecord[] = [];
  const missing: string[] = [];
  for (const id of ids) {
    const record = kept(id);
    if (record === undefined) missing.push(id);
    else if (record !== null) found.push(record);
  }
  return { found, missing };
}

/** Each of `ids` with the record a read of them found, or null: what to keep of that read. */
export function foundOrNone(ids: readonly string[], found: readonly StoredRecord[]): Map<string, StoredRecord | null> {
  const byId = new Map<string, StoredRecord | null>(ids.map((id) => [id, null]));
  for (const record of found) byId.set(record.id, record);
  return byId;
}
