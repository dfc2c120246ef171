// What SQLite's record writes do to keep history (docs/lifecycle.md), inside their own transactions.
import type Database from 'better-sqlite3';
import { forgottenBelow } from '../../domain/revisions.js';
import { keepCurrentRevision, keepDeletion, pruneRevisions } from '../query/history-sql.js';

export class SqliteHistoryWrites {
  private readonly keepCurrent: Database.Statement;
  private readonly keepDeletion: Database.Statement;
  private readonly prune: Database.Statement;

  constructor(
    db: Database.Database,
    /** Revisions kept per record (0: none). */
    private readonly keep: number,
  ) {
    this.keepCurrent = db.prepare(keepCurrentRevision('?'));
    this.keepDeletion = db.prepare(keepDeletion('?', '?', '?'));
    this.prune = db.prepare(pruneRevisions('?', '?'));
  }

  /** Before a change makes revision `next` of the record: keeps the current one, forgets those past the kept. */
  beforeChange(id: string, next: number): void {
    if (this.keep === 0) return;
    this.keepCurrent.run(id);
    this.forgetPast(id, next);
  }

  /** Before the record at `current` is deleted: keeps it, and the deletion as the history's last entry. */
  beforeDelete(id: string, current: number, at: number, userId: string | null): void {
    if (this.keep === 0) return;
    this.keepCurrent.run(id);
    this.keepDeletion.run(at, userId, id);
    this.forgetPast(id, current + 1);
  }

  private forgetPast(id: string, current: number): void {
    const below = forgottenBelow(current, this.keep);
    if (below !== null) this.prune.run(id, below);
  }
}
