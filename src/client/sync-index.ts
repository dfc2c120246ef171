// What a sync finds stored, by key.
import type { LoaderClient } from './load-types.js';
import type { JsonObject } from './types.js';

/** A key value as a map key: strings, numbers and booleans that look alike stay apart; anything else has no key. */
export function keyOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value === '' ? undefined : `s:${value}`;
  if (typeof value === 'number' && Number.isFinite(value)) return `n:${value}`;
  if (typeof value === 'boolean') return `b:${value}`;
  return undefined;
}

export interface IndexEntry {
  id: string;
  data: JsonObject;
  /** Where the input row that carried this key is (SyncOptions.position), once one did. */
  seenAt?: number;
}

export interface KeyIndex {
  /** The first record (in creation order) of each key: the one kept up to date. */
  byKey: Map<string, IndexEntry>;
  /** Later records sharing a key. */
  duplicates: string[];
  /** Records without a key. */
  keyless: string[];
}

export async function readKeyIndex(
  client: LoaderClient,
  modelId: string,
  key: string,
  signal: AbortSignal | undefined,
  onRecord: () => void,
): Promise<KeyIndex> {
  const byKey = new Map<string, IndexEntry>();
  const duplicates: string[] = [];
  const keyless: string[] = [];
  for await (const record of client.listAll(modelId, signal ? { signal } : {})) {
    onRecord();
    const k = keyOf(record.data[key]);
    if (k === undefined) keyless.push(record.id);
    else if (byKey.has(k)) duplicates.push(record.id);
    else byKey.set(k, { id: record.id, data: record.data });
  }
  return { byKey, duplicates, keyless };
}
