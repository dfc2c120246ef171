import type Database from 'better-sqlite3';
import type { SqlDialect, StepRunner } from '../core/runner.js';
import type { Step, Steps } from '../core/steps.js';

const SQLITE_DIALECT: SqlDialect = {
  byteOrder: '',
  lockRows: () => '',
  isUniqueViolation(error, constraint) {
    const failure = error as { code?: unknown; message?: unknown } | null;
    if (failure?.code !== 'SQLITE_CONSTRAINT_UNIQUE' && failure?.code !== 'SQLITE_CONSTRAINT_PRIMARYKEY') return false;
    return constraint === undefined || String(failure.message).includes(constraint);
  },
  bool: (value) => (value ? 1 : 0),
};

/** Steps run synchronously on the one connection; a transaction is an immediate one, so it never waits mid-way. */
export class SqliteStepRunner implements StepRunner {
  readonly sql = SQLITE_DIALECT;

  constructor(private readonly db: Database.Database) {}

  async read<T>(steps: Steps<T>): Promise<T> {
    return this.drive(steps);
  }

  async transaction<T>(steps: Steps<T>): Promise<T> {
    return this.db.transaction(() => this.drive(steps)).immediate();
  }

  private drive<T>(steps: Steps<T>): T {
    let next = steps.next();
    while (!next.done) {
      let answer: unknown;
      try {
        answer = this.execute(next.value);
      } catch (error) {
        next = steps.throw(error);
        continue;
      }
      next = steps.next(answer);
    }
    return next.value;
  }

  private execute(step: Step): unknown {
    switch (step.kind) {
      case 'all':
        return this.db.prepare(step.sql).all(...step.values);
      case 'run':
        return this.db.prepare(step.sql).run(...step.values).changes;
      case 'lock':
        return undefined;
      case 'native':
        return (step.run as (connection: Database.Database) => unknown)(this.db);
    }
  }
}
