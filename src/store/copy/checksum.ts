// The checksum of a model's records, computed alike on both ends of a copy over each record's id, data and
// timestamps in id order: one line per record, `id TAB data TAB created_at TAB updated_at LF`, with the data in
// PostgreSQL's jsonb text form (src/store/copy/jsonb-text.ts), which PostgreSQL prints itself and which is made here
// from any other JSON text.
//
// The records are hashed in chunks: the source's records in id order, cut after every CHUNK_ROWS (the last id of
// each chunk is its boundary); each chunk gives one SHA-256 per model of its records' lines, and a model's checksum
// is the SHA-256 of its chunks' digests in order. The target's records are cut at the source's boundaries, so
// PostgreSQL can hash a target's chunks itself (several at a time, while its indexes are built), reading nothing
// back into this process.
import { createHash, type Hash } from 'node:crypto';
import { jsonbText } from './jsonb-text.js';
import type { ChunkDigest, ChunkHasher, CopySide, Row, Value } from './side.js';

export type Checksums = Map<string, { records: number; digest: string }>;

/** The records' columns the checksum covers. */
export const CHECKSUM_COLUMNS = ['id', 'model_id', 'data', 'created_at', 'updated_at'] as const;

/** Records a chunk (of the source, in id order). */
export const CHUNK_ROWS = 10_000;

/** A null timestamp's text in a record's line (PostgreSQL writes the same). */
export const NULL_TEXT = '\\N';

/** One model's records in one chunk: declared with the sides (side.ts), which hash chunks too. */
export type { ChunkDigest };

/** Model checksums made of chunk digests, fed chunk by chunk in order. */
export class ChunkFold {
  private readonly models = new Map<string, { records: number; hash: Hash }>();

  add(chunk: number, digests: readonly ChunkDigest[]): void {
    for (const { modelId, records, digest } of digests) {
      let model = this.models.get(modelId);
      if (!model) {
        model = { records: 0, hash: createHash('sha256') };
        this.models.set(modelId, model);
      }
      model.records += records;
      model.hash.update(`${chunk}\t${digest}\n`);
    }
  }

  result(): Checksums {
    const checksums: Checksums = new Map();
    for (const [modelId, model] of this.models)
      checksums.set(modelId, { records: model.records, digest: model.hash.digest('hex') });
    return checksums;
  }
}

/**
 * Takes records in id order (their CHECKSUM_COLUMNS values), with their data as JSON text. Without boundaries it
 * cuts a chunk after every CHUNK_ROWS records and keeps their last ids (the source); with the source's boundaries
 * it cuts at those (a target hashed here).
 */
export class ChecksumAccumulator {
  private readonly fold = new ChunkFold();
  private readonly chunkHashes = new Map<string, { records: number; hash: Hash }>();
  private readonly boundaries: string[];
  private readonly cutsByCount: boolean;
  private chunk = 0;
  private rowsInChunk = 0;

  /** `dataIsJsonbText`: the data comes as PostgreSQL printed it (no conversion needed). */
  constructor(
    private readonly dataIsJsonbText: boolean,
    boundaries: readonly string[] | null = null,
  ) {
    this.cutsByCount = boundaries === null;
    this.boundaries = boundaries ? [...boundaries] : [];
  }

  add(id: Value, modelId: Value, data: Value, createdAt: Value, updatedAt: Value): void {
    const key = String(id);
    if (!this.cutsByCount) {
      while (this.chunk < this.boundaries.length && key > this.boundaries[this.chunk]!) this.closeChunk();
    }
    const model = String(modelId);
    let chunkHash = this.chunkHashes.get(model);
    if (!chunkHash) {
      chunkHash = { records: 0, hash: createHash('sha256') };
      this.chunkHashes.set(model, chunkHash);
    }
    chunkHash.records++;
    const json = this.dataIsJsonbText ? String(data) : jsonbText(String(data));
    chunkHash.hash.update(`${key}\t${json}\t${createdAt ?? NULL_TEXT}\t${updatedAt ?? NULL_TEXT}\n`);
    if (this.cutsByCount && ++this.rowsInChunk === CHUNK_ROWS) {
      this.boundaries.push(key);
      this.closeChunk();
    }
  }

  private closeChunk(): void {
    const digests: ChunkDigest[] = [];
    for (const [modelId, { records, hash }] of this.chunkHashes) digests.push({ modelId, records, digest: hash.digest('hex') });
    this.fold.add(this.chunk, digests);
    this.chunkHashes.clear();
    this.chunk++;
    this.rowsInChunk = 0;
  }

  /** The boundaries of the chunks closed so far (the source's, growing as records are added). */
  get boundariesSoFar(): readonly string[] {
    return this.boundaries;
  }

  /** The checksums, and the boundaries the chunks were cut at. */
  result(): { checksums: Checksums; boundaries: string[] } {
    if (this.chunkHashes.size > 0) this.closeChunk();
    return { checksums: this.fold.result(), boundaries: this.boundaries };
  }
}

/**
 * A target's chunks hashed by its database, each as soon as the target holds all of its records (during the load),
 * the rest at the end: the digests are ready soon after the last record is written.
 */
export class TargetChunks {
  private scheduled = 0;
  private readonly digests: Promise<ChunkDigest[]>[] = [];

  constructor(
    private readonly hasher: ChunkHasher,
    private readonly boundaries: readonly string[],
  ) {}

  /** The target holds every record up to `id` (in id order): the chunks that end there or before are hashed. */
  heldThrough(id: string): void {
    while (this.scheduled < this.boundaries.length && this.boundaries[this.scheduled]! <= id) this.schedule();
  }

  /** After the last record: the remaining chunks (the last one open-ended, for any record past the source's). */
  async checksums(): Promise<Checksums> {
    while (this.scheduled <= this.boundaries.length) this.schedule();
    const fold = new ChunkFold();
    for (let chunk = 0; chunk < this.digests.length; chunk++) fold.add(chunk, await this.digests[chunk]!);
    return fold.result();
  }

  private schedule(): void {
    const chunk = this.scheduled++;
    const digests = this.hasher.chunk(chunk > 0 ? this.boundaries[chunk - 1]! : null, this.boundaries[chunk] ?? null);
    // Awaited in checksums(); not an unhandled rejection before.
    digests.catch(() => {});
    this.digests.push(digests);
  }
}

/**
 * The checksums of a side's records, read and hashed here. `boundaries`: the source's (for a target); null for a
 * source, whose boundaries are made and returned.
 */
export async function checksumsOf(
  side: CopySide,
  batchRows: number,
  boundaries: readonly string[] | null,
): Promise<{ checksums: Checksums; boundaries: string[] }> {
  const accumulator = new ChecksumAccumulator(side.dataIsJsonbText, boundaries);
  let after: Row | null = null;
  for (;;) {
    const page = await side.readPage('records', CHECKSUM_COLUMNS, ['id'], after, batchRows);
    for (const [id, modelId, data, createdAt, updatedAt] of page) accumulator.add(id!, modelId!, data!, createdAt!, updatedAt!);
    if (page.length < batchRows) break;
    after = [page[page.length - 1]![0]!];
  }
  return accumulator.result();
}
