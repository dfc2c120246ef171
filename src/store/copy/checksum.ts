// The checksum of a model's records, computed alike on both ends of a copy: over each record's id, data and
// timestamps in id order. The data is hashed in one canonical JSON form (keys sorted), because the two databases
// keep the same value as different text (PostgreSQL's jsonb orders keys and puts a space after ":" and ",").
import { createHash, type Hash } from 'node:crypto';
import type { CopySide, Row, Value } from './side.js';

export type Checksums = Map<string, { records: number; digest: string }>;

/** The records' columns the checksum covers. */
export const CHECKSUM_COLUMNS = ['id', 'model_id', 'data', 'created_at', 'updated_at'] as const;

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  // Loops and concatenation rather than map/join: this runs for every record on both ends of a copy.
  if (Array.isArray(value)) {
    let text = '[';
    for (let index = 0; index < value.length; index++) text += (index > 0 ? ',' : '') + canonicalJson(value[index]);
    return text + ']';
  }
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object).sort();
  let text = '{';
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    text += (index > 0 ? ',' : '') + JSON.stringify(key) + ':' + canonicalJson(object[key]);
  }
  return text + '}';
}

/** Takes records in id order (their CHECKSUM_COLUMNS values), one hash per model. */
export class ChecksumAccumulator {
  private readonly hashes = new Map<string, { records: number; hash: Hash }>();

  add(id: Value, modelId: Value, data: Value, createdAt: Value, updatedAt: Value): void {
    let model = this.hashes.get(String(modelId));
    if (!model) {
      model = { records: 0, hash: createHash('sha256') };
      this.hashes.set(String(modelId), model);
    }
    model.records++;
    model.hash.update(`${id}\t${canonicalJson(JSON.parse(String(data)))}\t${createdAt}\t${updatedAt}\n`);
  }

  result(): Checksums {
    const checksums: Checksums = new Map();
    for (const [modelId, model] of this.hashes)
      checksums.set(modelId, { records: model.records, digest: model.hash.digest('hex') });
    return checksums;
  }
}

export async function checksumsOf(side: CopySide, batchRows: number): Promise<Checksums> {
  const accumulator = new ChecksumAccumulator();
  let after: Row | null = null;
  for (;;) {
    const page = await side.readPage('records', CHECKSUM_COLUMNS, ['id'], after, batchRows);
    for (const [id, modelId, data, createdAt, updatedAt] of page) accumulator.add(id!, modelId!, data!, createdAt!, updatedAt!);
    if (page.length < batchRows) break;
    after = [page[page.length - 1]![0]!];
  }
  return accumulator.result();
}
