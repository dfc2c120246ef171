// What a forced delete does on SQLite to the records that hold the deleted record or asset (their relation or media
// fields): the id removed from each record's data, its revision kept, its `record.updated` event, its model's content
// version moved. Run inside the delete's own write (records.ts, assets.ts).
import type Database from 'better-sqlite3';
import type { FieldDefinition, RecordData } from '../../domain/fields.js';
import { withoutReference } from '../../domain/relations.js';
import { recordPayload } from '../../domain/webhook-events.js';
import type { Reference } from '../store.js';
import { nextRevision } from '../query/history-sql.js';
import { isoTime } from '../rows/time.js';
import type { SqliteDraftWrites } from './draft-writes.js';
import type { SqliteHistoryWrites } from './record-history.js';
import type { SqliteOutbox } from './webhook-outbox.js';

/** A record a forced delete changed (its reference to the deleted id removed), for its event. */
export interface ChangedSource {
  id: string;
  modelId: string;
  dataText: string;
  createdAt: number;
  updatedAt: number;
}

interface SourceRow {
  model_id: string;
  data: string;
  created_at: number;
  updated_at: number;
  revision: number;
  publish_status: string | null;
  fields: string;
}

export class SqliteReferenceDrops {
  private readonly selectSource: Database.Statement;
  private readonly updateSource: Database.Statement;

  constructor(
    db: Database.Database,
    private readonly history: SqliteHistoryWrites,
    private readonly drafts: SqliteDraftWrites,
    private readonly outbox: SqliteOutbox,
    private readonly modelSlug: (modelId: string) => string,
    /** Told of each model whose records changed: its content version moves at the write group's commit. */
    private readonly modified: (modelId: string) => void,
  ) {
    this.selectSource = db.prepare(
      `SELECT r.model_id, r.data, r.created_at, r.updated_at, r.revision, r.publish_status, m.fields
       FROM records r JOIN models m ON m.id = r.model_id WHERE r.id = ?`,
    );
    this.updateSource = db.prepare(`UPDATE records SET data = ?, updated_at = ?, ${nextRevision('?')} WHERE id = ?`);
  }

  /** Removes `targetId` from each record `references` names; the records as they now are, one per record. */
  drop(references: readonly Reference[], targetId: string, now: number): ChangedSource[] {
    const changed = new Map<string, ChangedSource>();
    for (const reference of references) changed.set(reference.sourceId, this.dropOne(reference, targetId, now));
    return [...changed.values()];
  }

  /**
   * The changed records are updated records: their events, and their models' content versions moved (records kept
   * by version, ETags) as a patch's would be.
   */
  announce(workspaceId: string, changed: readonly ChangedSource[]): void {
    for (const source of changed) {
      this.modified(source.modelId);
      this.outbox.add({
        workspaceId,
        type: 'record.updated',
        modelId: source.modelId,
        at: source.updatedAt,
        details: () => ({
          modelSlug: this.modelSlug(source.modelId),
          payload: recordPayload(source.id, source.dataText, isoTime(source.createdAt), isoTime(source.updatedAt)),
        }),
      });
    }
  }

  /** Removes one reference to `targetId` from the record that holds it; the record as it now is. */
  private dropOne(reference: Reference, targetId: string, now: number): ChangedSource {
    const source = this.selectSource.get(reference.sourceId) as SourceRow;
    const fields = JSON.parse(source.fields) as FieldDefinition[];
    const data = withoutReference(fields, JSON.parse(source.data) as RecordData, reference.fieldKey, targetId);
    const dataText = JSON.stringify(data);
    const updatedAt = Math.max(now, Number(source.updated_at));
    this.history.beforeChange(reference.sourceId, source.revision + 1);
    this.updateSource.run(dataText, updatedAt, 'update', reference.sourceId);
    this.drafts.statusAfterChange(reference.sourceId, source.publish_status, data);
    return { id: reference.sourceId, modelId: source.model_id, dataText, createdAt: Number(source.created_at), updatedAt };
  }
}
