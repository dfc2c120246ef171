// What `content-service copy` moves, table by table. The columns of a table are read off the target's schema
// (made by the service's own migrations), so a new column is copied without a change here; a new table is one
// line in COPIED_TABLES (or in NOT_COPIED with the reason). A source table that is in neither list stops the copy
// before it writes anything, so no table is left behind unnoticed.

export interface CopiedTable {
  name: string;
  /** The primary key: rows are read and written in its order, and a resumed copy starts after the target's last. */
  key: readonly string[];
}

/** In the order of their references (a row's parent is copied before it). */
export const COPIED_TABLES: readonly CopiedTable[] = [
  { name: 'organisations', key: ['id'] },
  { name: 'workspaces', key: ['id'] },
  { name: 'users', key: ['id'] },
  { name: 'memberships', key: ['workspace_id', 'user_id'] },
  { name: 'api_tokens', key: ['id'] },
  { name: 'sign_in_links', key: ['token_hash'] },
  { name: 'sessions', key: ['id_hash'] },
  { name: 'models', key: ['id'] },
  { name: 'records', key: ['id'] },
  // Before record_links: a record's media field links to an asset.
  { name: 'assets', key: ['id'] },
  { name: 'record_links', key: ['target_id', 'source_id', 'field_key'] },
  { name: 'record_revisions', key: ['record_id', 'revision'] },
  { name: 'published_records', key: ['id'] },
  { name: 'published_record_links', key: ['target_id', 'source_id', 'field_key'] },
  { name: 'schedules', key: ['id'] },
  { name: 'webhooks', key: ['id'] },
];

/** A table in the target that marks an unfinished copy (and names its source); dropped once the copy is verified. */
export const PROGRESS_TABLE = 'content_service_copy';

/**
 * Where a copy keeps the definitions of the target's indexes it dropped for a table's bulk load (made again after
 * it), so that a copy stopped meanwhile makes them again on --resume.
 */
export const DEFERRED_INDEXES_TABLE = 'content_service_copy_indexes';

/** Tables the migrations make that hold nothing to move, and why. */
export const NOT_COPIED: Readonly<Record<string, string>> = {
  schema_migrations: "the target's own, written by its migrations",
  // Folded into workspaces.content_version as it is read (the postgres side), so the content version never goes back.
  content_counters: 'summed into workspaces.content_version',
  write_budget: 'write budget counters of the current minute (PostgreSQL)',
  webhook_events: 'webhook delivery history (the outbox): not moved; let deliveries finish before the copy',
  webhook_deliveries: 'webhook delivery history: not moved',
  webhook_attempts: 'webhook delivery history: not moved',
  // The target has none of the source's events: its worker starts each copied webhook's cursor at its own beginning.
  webhook_cursors: 'delivery progress over webhook_events, which is not moved',
  webhook_leases: 'which running server process sends to a webhook (PostgreSQL)',
  [PROGRESS_TABLE]: "the copy's own progress marker",
  [DEFERRED_INDEXES_TABLE]: "the copy's own: indexes dropped for the load",
};
