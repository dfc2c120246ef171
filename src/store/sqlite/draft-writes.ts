// What SQLite's record writes do for drafts models' records (docs/lifecycle.md), inside their own transactions.
import type Database from 'better-sqlite3';
import type { RecordData } from '../../domain/fields.js';
import { recordStatus } from '../../domain/drafts.js';
import { forgetPublishedCopy, forgetPublishedLinks, publishedData } from '../query/drafts-sql.js';

export class SqliteDraftWrites {
  private readonly markDraft: Database.Statement;
  private readonly selectPublishedData: Database.Statement;
  private readonly setStatus: Database.Statement;
  private readonly forgetCopy: Database.Statement[];

  constructor(db: Database.Database) {
    this.markDraft = db.prepare("UPDATE records SET publish_status = 'draft' WHERE id IN (SELECT value FROM json_each(?))");
    this.selectPublishedData = db.prepare(publishedData('?')).pluck(true);
    this.setStatus = db.prepare('UPDATE records SET publish_status = ? WHERE id = ?');
    this.forgetCopy = [...forgetPublishedCopy('?', '?'), forgetPublishedLinks('?')].map((sql) => db.prepare(sql));
  }

  /** Imported records of a drafts model start as drafts. */
  markDrafts(ids: readonly string[]): void {
    this.markDraft.run(JSON.stringify(ids));
  }

  /**
   * After a change of a record's data: a published record is `published` again when its data equals its published
   * copy's (deep equality), else `changed`. Returns the state it now has.
   */
  statusAfterChange(id: string, status: string | null, data: RecordData): string | null {
    if (status !== 'published' && status !== 'changed') return status;
    const published = this.selectPublishedData.get(id) as string | undefined;
    const next = recordStatus(data, published === undefined ? null : JSON.parse(published));
    if (next !== status) this.setStatus.run(next, id);
    return next;
  }

  /** A deleted record's published copy goes with it. */
  forget(id: string, modelId: string): void {
    this.forgetCopy[0]!.run(modelId, id);
    this.forgetCopy[1]!.run(id);
    this.forgetCopy[2]!.run(id);
  }
}
