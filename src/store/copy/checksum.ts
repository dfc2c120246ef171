// The checksum of a model's records, computed alike on both ends of a copy: over each record's id, data and
// timestamps in id order. The data is hashed in one canonical JSON form (keys sorted), because the two databases
// keep the same value as different text (PostgreSQL's jsonb orders keys and puts a space after ":" and ",").
import { createHash, type Hash } from 'node:crypto';
import type { CopySide, Row } from './side.js';

export type Checksums = Map<string, { records: number; digest: string }>;

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.keys(value as Record<string, unknown>)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
  return `{${entries.join(',')}}`;
}

export async function checksumsOf(side: CopySide, batchRows: number): Promise<Checksums> {
  const hashes = new Map<string, { records: number; hash: Hash }>();
  const columns = ['id', 'model_id', 'data', 'created_at', 'updated_at'];
  let after: Row | null = null;
  for (;;) {
    const page = await side.readPage('records', columns, ['id'], after, batchRows);
    for (const [id, modelId, data, createdAt, updatedAt] of page) {
      let model = hashes.get(String(modelId));
      if (!model) {
        model = { records: 0, hash: createHash('sha256') };
        hashes.set(String(modelId), model);
      }
      model.records++;
      model.hash.update(`${id}\t${canonicalJson(JSON.parse(String(data)))}\t${createdAt}\t${updatedAt}\n`);
    }
    if (page.length < batchRows) break;
    after = [page[page.length - 1]![0]!];
  }
  const checksums: Checksums = new Map();
  for (const [modelId, model] of hashes) checksums.set(modelId, { records: model.records, digest: model.hash.digest('hex') });
  return checksums;
}
