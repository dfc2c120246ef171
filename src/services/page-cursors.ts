import type { ModelDefinition } from '../domain/fields.js';
import type { ListWindow } from '../domain/listing.js';
import type { StoredRecord } from '../domain/stored-record.js';
import { BoundedMap } from '../shared/bounded-map.js';
import type { PageCursor } from '../store/store.js';

interface Entry {
  writeVersion: number;
  cursor: PageCursor;
}

/**
 * Remembers where pages in creation order ended, so that a client paging with a growing `offset` gets the next
 * page by continuing from there instead of skipping `offset` rows again. An entry counts only while the model's
 * write version (inserts and deletes) is the one it was made under; otherwise the plain offset is used.
 */
export class PageCursors {
  private readonly entries: BoundedMap<string, Entry>;

  constructor(capacity = 10_000) {
    this.entries = new BoundedMap(capacity);
  }

  /** Whether a cursor may start this window (so the model is needed before the page is read). */
  mayStart(window: ListWindow): boolean {
    return window.offset > 0 && window.sort.startsWith('createdAt');
  }

  /** A cursor where `window.offset` starts, when one is known and still true. */
  find(model: ModelDefinition, window: ListWindow): PageCursor | undefined {
    if (!this.mayStart(window)) return undefined;
    const entry = this.entries.get(key(model.id, window.sort, window.offset));
    return entry?.writeVersion === model.writeVersion ? entry.cursor : undefined;
  }

  /** Notes where the page that was just read ended. */
  remember(model: ModelDefinition, window: ListWindow, items: StoredRecord[]): void {
    const last = items[items.length - 1];
    if (!last || !window.sort.startsWith('createdAt')) return;
    this.entries.set(key(model.id, window.sort, window.offset + items.length), {
      writeVersion: model.writeVersion,
      cursor: { time: Date.parse(last.createdAt), id: last.id },
    });
  }
}

function key(modelId: string, sort: string, offset: number): string {
  return `${modelId}|${sort}|${offset}`;
}
