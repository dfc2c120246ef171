// Records read by id for populate, kept by their model's content version: a storefront's pages point at the same
// few categories, authors and brands again and again, and reading them was most of a populated page's cost.
import { unparsedText } from '../../domain/json-text.js';
import type { StoredRecord } from '../../domain/stored-record.js';

/** At most this many records kept, over all models, and this much of their data (characters of JSON text). */
const MAX_RECORDS = 10_000;
const MAX_DATA_CHARS = 16 * 1024 * 1024;

interface ModelRecords {
  version: number;
  /** The records read by id at that version; null for an id with no record of the model. */
  byId: Map<string, StoredRecord | null>;
  chars: number;
}

/**
 * Records of a model as they were at one of its content versions (models.content_version moves in the commit of
 * every write to the model's records or definition): kept for a version, they are the records a read at that
 * version gives. A record kept here is shared by every read that gets it: given only to callers that never change
 * the records they get (ManyReading.shared).
 */
export class KeptRecords {
  private readonly models = new Map<string, ModelRecords>();
  private records = 0;
  private chars = 0;

  /** What is kept of the model at `version` (nothing kept for an earlier version is given, and it is dropped). */
  at(modelId: string, version: number): Map<string, StoredRecord | null> {
    let kept = this.models.get(modelId);
    if (kept?.version !== version) {
      if (kept) this.drop(modelId, kept);
      kept = { version, byId: new Map(), chars: 0 };
      this.models.set(modelId, kept);
    }
    return kept.byId;
  }

  /** Keeps what a read at `version` found (foundOrNone: each id with its record, or null). */
  keep(modelId: string, version: number, read: ReadonlyMap<string, StoredRecord | null>): void {
    const kept = this.models.get(modelId);
    if (kept?.version !== version) return;
    for (const [id, record] of read) {
      if (kept.byId.has(id)) continue;
      const chars = record ? (unparsedText(record)?.length ?? 0) : 0;
      kept.byId.set(id, record);
      kept.chars += chars;
      this.records += 1;
      this.chars += chars;
    }
    while ((this.records > MAX_RECORDS || this.chars > MAX_DATA_CHARS) && this.models.size > 0) {
      const [oldestId, oldest] = this.models.entries().next().value!;
      this.drop(oldestId, oldest);
    }
  }

  private drop(modelId: string, kept: ModelRecords): void {
    this.models.delete(modelId);
    this.records -= kept.byId.size;
    this.chars -= kept.chars;
  }
}
