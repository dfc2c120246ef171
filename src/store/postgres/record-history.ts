// What PostgreSQL's record writes do to keep history (docs/lifecycle.md), on their transaction's connection.
import type { PoolClient, QueryConfig } from 'pg';
import { forgottenBelow } from '../../domain/revisions.js';
import { keepCurrentRevision, keepDeletion, pruneRevisions } from '../query/history-sql.js';

const UNLINK = 'DELETE FROM record_links WHERE source_id = $1';
const DEFINITION = 'SELECT updated_at FROM models WHERE id = $2';

/** A modify's first statement after its lock: its old links go and its model's definition version is read. */
export const UNLINK_DEFINITION: QueryConfig = {
  name: 'record_unlink_definition',
  text: `WITH unlinked AS (${UNLINK}) ${DEFINITION}`,
};

/** The same, keeping the record's current revision in its history in the same statement. */
export const UNLINK_KEEP_DEFINITION: QueryConfig = {
  name: 'record_unlink_keep_definition',
  text: `WITH unlinked AS (${UNLINK}), kept AS (${keepCurrentRevision('$1')}) ${DEFINITION}`,
};

export class PostgresHistoryWrites {
  constructor(
    /** Revisions kept per record (0: none). */
    readonly keep: number,
  ) {}

  /** Keeps the record's current revision (for a write that does not do it in a statement of its own). */
  async keepCurrent(client: PoolClient, id: string): Promise<void> {
    if (this.keep > 0) await client.query({ name: 'record_keep_revision', text: keepCurrentRevision('$1'), values: [id] });
  }

  /** Forgets the revisions past the kept once the record is at revision `next`. */
  async prune(client: PoolClient, id: string, next: number): Promise<void> {
    const below = forgottenBelow(next, this.keep);
    if (below === null) return;
    await client.query({ name: 'record_prune_revisions', text: pruneRevisions('$1', '$2'), values: [id, below] });
  }

  /** Before the record at `current` is deleted: keeps it, and the deletion as the history's last entry. */
  async beforeDelete(client: PoolClient, id: string, current: number, at: number, userId: string | null): Promise<void> {
    if (this.keep === 0) return;
    await this.keepCurrent(client, id);
    await client.query(keepDeletion('$1::bigint', '$2::text', '$3'), [at, userId, id]);
    await this.prune(client, id, current + 1);
  }
}
