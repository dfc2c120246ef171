import type Database from 'better-sqlite3';

interface Pending {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

const ENDED_EARLY = 'The group transaction ended before its commit';

/**
 * Group commit for single record writes. A commit costs more than the write itself (WAL frames for every page the
 * write touched, file locks: ~100 µs of CPU, half of it in system calls), so writes that arrive in the same turn
 * of the event loop share one: each runs at once, in order, in a savepoint of its own (a refused write rolls back
 * only itself), and one `COMMIT` at the end of the turn (setImmediate) makes them all durable. A write's promise
 * settles only after that commit: nothing is acknowledged before it is in the WAL (WAL with synchronous=NORMAL:
 * a committed transaction survives the process being killed; see docs/benchmarks.md). When the commit fails,
 * every write of the group fails with it.
 *
 * A write alone in its turn runs in a transaction of its own, without a savepoint. The transaction statements
 * are prepared once (better-sqlite3's db.transaction() makes new wrapper functions on every call).
 */
export class WriteGroup {
  private pending: Pending[] = [];
  private scheduled = false;
  /** Writes committed and commits made (the average group size is writes / commits). */
  writes = 0;
  commits = 0;
  private readonly begin: Database.Statement;
  private readonly commit: Database.Statement;
  private readonly rollback: Database.Statement;
  private readonly savepoint: Database.Statement;
  private readonly release: Database.Statement;
  private readonly rollbackTo: Database.Statement;

  private readonly beforeCommit: () => void;
  private readonly onCommit: () => void;

  constructor(
    private readonly db: Database.Database,
    hooks: {
      /** Runs in each group's transaction after its writes, just before the commit: once for the whole group. */
      beforeCommit?: () => void;
      /** Called after each successful commit. */
      onCommit?: () => void;
    } = {},
    private readonly maxWrites = 200,
  ) {
    this.beforeCommit = hooks.beforeCommit ?? (() => {});
    this.onCommit = hooks.onCommit ?? (() => {});
    this.begin = db.prepare('BEGIN IMMEDIATE');
    this.commit = db.prepare('COMMIT');
    this.rollback = db.prepare('ROLLBACK');
    this.savepoint = db.prepare('SAVEPOINT group_write');
    this.release = db.prepare('RELEASE group_write');
    this.rollbackTo = db.prepare('ROLLBACK TO group_write');
  }

  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.onTurnEnd);
      }
    });
  }

  private readonly onTurnEnd = () => {
    this.scheduled = false;
    this.flush();
  };

  /** Commits every pending write now (also before the database is closed). */
  flush(): void {
    while (this.pending.length > 0) this.runGroup(this.pending.splice(0, this.maxWrites));
  }

  private runGroup(group: Pending[]): void {
    this.commits++;
    this.writes += group.length;
    const alone = group.length === 1;
    const values: unknown[] = new Array(group.length);
    const errors: unknown[] = new Array(group.length);
    const failed = new Array<boolean>(group.length).fill(false);
    try {
      this.begin.run();
      for (let index = 0; index < group.length; index++) {
        if (!alone) this.savepoint.run();
        try {
          values[index] = group[index]!.work();
        } catch (error) {
          if (alone) throw error;
          failed[index] = true;
          errors[index] = error;
          // A failed statement can end the whole transaction (SQLite does so on I/O errors, for one):
          // then nothing more may run in it, or it would be committed alone.
          if (!this.db.inTransaction) throw new Error(ENDED_EARLY, { cause: error });
          this.rollbackTo.run();
        }
        if (!alone) this.release.run();
      }
      this.beforeCommit();
      this.commit.run();
      this.onCommit();
    } catch (error) {
      if (this.db.inTransaction) this.rollback.run();
      for (const item of group) item.reject(error);
      return;
    }
    for (let index = 0; index < group.length; index++) {
      if (failed[index]) group[index]!.reject(errors[index]);
      else group[index]!.resolve(values[index]);
    }
  }
}
