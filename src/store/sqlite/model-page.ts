// A model and a page of its records, read one right after the other with nothing in between (SQLite answers in
// process: there is no round trip to save, only the same answer as PostgreSQL's one statement to give).
import type Database from 'better-sqlite3';
import type { ListWindow } from '../../domain/listing.js';
import type { ModelKey, ModelPage, PageReading, RecordStore } from '../store.js';
import { toModel, type ModelRow } from '../rows/model-rows.js';

const statements = new WeakMap<Database.Database, { id: Database.Statement; slug: Database.Statement }>();

export async function selectModelPage(
  db: Database.Database,
  records: Pick<RecordStore, 'list'>,
  /** The reads of published copies, for a page of what the delivery route serves (reading.served). */
  published: Pick<RecordStore, 'list'>,
  workspaceId: string,
  key: ModelKey,
  window: ListWindow,
  reading: PageReading,
): Promise<ModelPage | null> {
  let models = statements.get(db);
  if (!models) {
    models = {
      id: db.prepare('SELECT * FROM models WHERE workspace_id = ? AND id = ?'),
      slug: db.prepare('SELECT * FROM models WHERE workspace_id = ? AND slug = ?'),
    };
    statements.set(db, models);
  }
  const row = ('id' in key ? models.id.get(workspaceId, key.id) : models.slug.get(workspaceId, key.slug)) as ModelRow | undefined;
  if (!row) return null;
  const model = toModel(row);
  // Called without awaiting anything first: the page is read in the same turn as the model, no write between.
  const from = reading.served && model.drafts ? published : records;
  const page = from.list(model.id, window, undefined, {
    data: reading.data,
    maxDataBytes: model.hasLargeRecords ? reading.maxDataBytes : null,
  });
  return { model, items: await page };
}
