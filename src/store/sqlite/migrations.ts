import type Database from 'better-sqlite3';

/** Schema versions in order; each runs once, inside the migration transaction. */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE organisations (
    id TEXT PRIMARY KEY,
    slug TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL
  );
  CREATE TABLE workspaces (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES organisations(id),
    slug TEXT NOT NULL,
    write_budget INTEGER,
    created_at INTEGER NOT NULL,
    UNIQUE (org_id, slug)
  );
  CREATE TABLE users (
    id TEXT PRIMARY KEY,
    email TEXT NOT NULL UNIQUE,
    password_hash TEXT,
    created_at INTEGER NOT NULL
  );
  CREATE TABLE memberships (
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    user_id TEXT NOT NULL REFERENCES users(id),
    role TEXT NOT NULL,
    PRIMARY KEY (workspace_id, user_id)
  );
  CREATE TABLE api_tokens (
    id TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    user_id TEXT NOT NULL REFERENCES users(id),
    name TEXT,
    created_at INTEGER NOT NULL,
    expires_at INTEGER,
    revoked_at INTEGER
  );
  CREATE TABLE models (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    slug TEXT NOT NULL,
    name TEXT NOT NULL,
    description TEXT,
    display_field TEXT NOT NULL,
    fields TEXT NOT NULL,
    product TEXT,
    delivery_access TEXT NOT NULL,
    record_count INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (workspace_id, slug)
  );
  CREATE TABLE records (
    id TEXT PRIMARY KEY,
    model_id TEXT NOT NULL REFERENCES models(id),
    workspace_id TEXT NOT NULL,
    data TEXT NOT NULL,
    sku TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    created_by TEXT,
    updated_by TEXT
  );
  CREATE UNIQUE INDEX records_model_sku ON records (model_id, sku);
  CREATE INDEX records_model_created ON records (model_id, created_at, id);
  CREATE INDEX records_model_updated ON records (model_id, updated_at, id);
  CREATE TABLE record_links (
    target_id TEXT NOT NULL,
    source_id TEXT NOT NULL,
    field_key TEXT NOT NULL,
    PRIMARY KEY (target_id, source_id, field_key)
  ) WITHOUT ROWID;
  CREATE INDEX record_links_source ON record_links (source_id);
  `,
  `
  ALTER TABLE models ADD COLUMN write_version INTEGER NOT NULL DEFAULT 0;
  `,
  `
  CREATE TABLE sessions (
    id_hash TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id),
    csrf_token TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    last_seen INTEGER NOT NULL
  );
  CREATE INDEX sessions_user ON sessions (user_id);
  CREATE INDEX sessions_expires ON sessions (expires_at);
  CREATE INDEX api_tokens_workspace ON api_tokens (workspace_id, created_at);
  `,
  `
  ALTER TABLE models ADD COLUMN has_large_records INTEGER NOT NULL DEFAULT 0;
  UPDATE models SET has_large_records = 1 WHERE id IN (SELECT DISTINCT model_id FROM records WHERE length(data) > 16384);
  `,
  `
  ALTER TABLE models ADD COLUMN icon TEXT;
  ALTER TABLE models ADD COLUMN color TEXT;
  ALTER TABLE workspaces ADD COLUMN default_locale TEXT NOT NULL DEFAULT 'en';
  `,
  // The delivery route's content version (HTTP caching): the models' counters move with every write that can change
  // a delivery answer; the workspace's moves when a model (and its counter) is deleted.
  `
  ALTER TABLE models ADD COLUMN content_version INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE workspaces ADD COLUMN content_version INTEGER NOT NULL DEFAULT 0;
  `,
  // When each API token was last used (token list), written at most once a minute per token.
  `
  ALTER TABLE api_tokens ADD COLUMN last_used_at INTEGER;
  `,
  // Webhooks (spec/webhooks.md): the endpoints, the outbox of events (written in the transaction of the write they
  // describe; `sequence` orders them), one delivery per event and webhook, and the log of its attempts.
  `
  CREATE TABLE webhooks (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    url TEXT NOT NULL,
    events TEXT NOT NULL,
    model_ids TEXT,
    description TEXT,
    active INTEGER NOT NULL,
    secret TEXT NOT NULL,
    previous_secret TEXT,
    previous_secret_until INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX webhooks_workspace ON webhooks (workspace_id, created_at);
  CREATE TABLE webhook_events (
    sequence INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    workspace_id TEXT NOT NULL,
    type TEXT NOT NULL,
    model_id TEXT,
    model_slug TEXT,
    payload TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX webhook_events_created ON webhook_events (created_at);
  CREATE TABLE webhook_deliveries (
    id TEXT PRIMARY KEY,
    webhook_id TEXT NOT NULL,
    event_id TEXT NOT NULL,
    event_sequence INTEGER NOT NULL,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    last_status_code INTEGER,
    last_error TEXT,
    next_attempt_at INTEGER,
    locked_until INTEGER,
    claim_token TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at, event_sequence) WHERE status = 'pending';
  CREATE INDEX webhook_deliveries_log ON webhook_deliveries (webhook_id, created_at, id);
  CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);
  CREATE TABLE webhook_attempts (
    delivery_id TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    status_code INTEGER,
    error TEXT,
    duration_ms INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (delivery_id, attempt)
  ) WITHOUT ROWID;
  `,
  // Members (admin API `member`): when each membership began, and the one-time sign-in links of users added without
  // a password (only the SHA-256 of the link's token is kept).
  `
  ALTER TABLE memberships ADD COLUMN created_at INTEGER;
  CREATE TABLE sign_in_links (
    token_hash TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    user_id TEXT NOT NULL REFERENCES users(id),
    created_by TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at INTEGER
  );
  CREATE INDEX sign_in_links_user ON sign_in_links (user_id, workspace_id);
  `,
  // The updatedAt orders' index holds only the records whose updated_at differs from created_at: a record never
  // modified (every imported or created one) is not written into a fifth B-tree. Its place in updatedAt order is
  // its place in createdAt order, which records_model_created serves (sqlite/updated-order.ts merges the two).
  // Each index ends with the other time, so the merge tells its records apart from the index alone. `<>` rather
  // than `>`: a record whose time went backwards (a clock set back) is still in one of the two.
  `
  DROP INDEX records_model_created;
  CREATE INDEX records_model_created ON records (model_id, created_at, id, updated_at);
  DROP INDEX records_model_updated;
  CREATE INDEX records_model_updated ON records (model_id, updated_at, id, created_at) WHERE updated_at <> created_at;
  `,
  // Webhooks, one outbox row per write: a write stores only its event; each webhook's cursor is the sequence up to
  // which every event it subscribes to has its delivery row, and the worker makes the rows past it (query/delivery-plan.ts).
  // The webhooks of before start at the last event (its deliveries were written with it). The delivery log orders
  // rows of one millisecond by event sequence (then id), as materialised rows' ids follow materialisation, not the write.
  `
  CREATE TABLE webhook_cursors (
    webhook_id TEXT PRIMARY KEY,
    last_sequence INTEGER NOT NULL
  ) WITHOUT ROWID;
  INSERT INTO webhook_cursors (webhook_id, last_sequence)
    SELECT id, coalesce((SELECT max(sequence) FROM webhook_events), 0) FROM webhooks;
  DROP INDEX webhook_deliveries_log;
  CREATE INDEX webhook_deliveries_log ON webhook_deliveries (webhook_id, created_at, event_sequence, id);
  `,
  // The outbox row of a write in one B-tree (docs/decisions.md "Webhooks: the SQLite outbox row in one B-tree"): no
  // index on the event's id (deliveries join their event by sequence, the rowid) nor on its time (pruning goes by
  // sequence order), and no AUTOINCREMENT (its sqlite_sequence row was written by every event). A sequence is still
  // never reused: pruning keeps the newest event, and the high-water mark of AUTOINCREMENT is kept here as a row of
  // the newest sequence when pruning had removed the newest events (a ping's type: no cursor makes a delivery of it).
  `
  CREATE TABLE webhook_events_rowid (
    sequence INTEGER PRIMARY KEY,
    id TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    type TEXT NOT NULL,
    model_id TEXT,
    model_slug TEXT,
    payload TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  INSERT INTO webhook_events_rowid (sequence, id, workspace_id, type, model_id, model_slug, payload, created_at)
    SELECT sequence, id, workspace_id, type, model_id, model_slug, payload, created_at FROM webhook_events;
  INSERT INTO webhook_events_rowid (sequence, id, workspace_id, type, model_id, model_slug, payload, created_at)
    SELECT seq, 'sequence-mark-' || seq, '', 'webhook.ping', NULL, NULL, '{}', 0 FROM sqlite_sequence
    WHERE name = 'webhook_events' AND seq > (SELECT coalesce(max(sequence), 0) FROM webhook_events);
  DROP TABLE webhook_events;
  ALTER TABLE webhook_events_rowid RENAME TO webhook_events;
  DROP INDEX webhook_deliveries_event;
  CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_sequence);
  `,
  // History (docs/lifecycle.md): the record row is its current revision; a change keeps the data it replaces here.
  `
  ALTER TABLE records ADD COLUMN revision INTEGER NOT NULL DEFAULT 1;
  ALTER TABLE records ADD COLUMN revision_operation TEXT NOT NULL DEFAULT 'create';
  CREATE TABLE record_revisions (
    record_id TEXT NOT NULL,
    revision INTEGER NOT NULL,
    workspace_id TEXT NOT NULL,
    model_id TEXT NOT NULL,
    operation TEXT NOT NULL,
    data TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    created_by TEXT,
    PRIMARY KEY (record_id, revision)
  );
  CREATE INDEX record_revisions_deleted ON record_revisions (created_at) WHERE operation = 'delete';
  `,
  // Drafts (docs/lifecycle.md): a drafts model's records keep their published copies in published_records, with the
  // columns of records that the reads select, so that the delivery route reads either table with the same SQL.
  // publish_status: NULL on a model without drafts, else draft | published | changed.
  `
  ALTER TABLE models ADD COLUMN drafts INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE models ADD COLUMN published_count INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE records ADD COLUMN publish_status TEXT;
  ALTER TABLE records ADD COLUMN published_revision INTEGER;
  ALTER TABLE records ADD COLUMN published_at INTEGER;
  CREATE TABLE published_records (
    id TEXT PRIMARY KEY,
    model_id TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    data TEXT NOT NULL,
    sku TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    created_by TEXT,
    updated_by TEXT,
    revision INTEGER NOT NULL,
    publish_status TEXT NOT NULL DEFAULT 'published',
    published_revision INTEGER NOT NULL,
    published_at INTEGER NOT NULL
  );
  CREATE INDEX published_records_model_sku ON published_records (model_id, sku);
  CREATE INDEX published_records_model_created ON published_records (model_id, created_at, id, updated_at);
  CREATE INDEX published_records_model_updated ON published_records (model_id, updated_at, id, created_at)
    WHERE updated_at <> created_at;
  `,
  // Schedules (docs/lifecycle.md): a publish or unpublish of many records at a set time, carried out by a running serve.
  `
  CREATE TABLE schedules (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    action TEXT NOT NULL,
    at INTEGER NOT NULL,
    ids TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending',
    error TEXT,
    created_at INTEGER NOT NULL,
    created_by TEXT,
    done_at INTEGER
  );
  CREATE INDEX schedules_due ON schedules (at) WHERE status = 'pending';
  CREATE INDEX schedules_workspace ON schedules (workspace_id, at, id);
  `,
  // The published copies' relation links: what relation filters on the published copies read (record_links are the
  // working copies'). Made at publish from the working copies' links; existing published copies take them as they are.
  `
  CREATE TABLE published_record_links (
    target_id TEXT NOT NULL,
    source_id TEXT NOT NULL,
    field_key TEXT NOT NULL,
    PRIMARY KEY (target_id, source_id, field_key)
  ) WITHOUT ROWID;
  CREATE INDEX published_record_links_source ON published_record_links (source_id);
  INSERT INTO published_record_links (target_id, source_id, field_key)
    SELECT l.target_id, l.source_id, l.field_key FROM record_links l WHERE l.source_id IN (SELECT id FROM published_records);
  `,
  // Assets (docs/media.md): the rows of uploaded files (their bytes are in media storage, by sha256). A media field
  // holding an asset is a record_links row whose target is the asset. alt: JSON object locale → text, or NULL; tags:
  // a JSON array of strings; created_by: the uploading user's id.
  `
  CREATE TABLE assets (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    filename TEXT NOT NULL,
    mime_type TEXT NOT NULL,
    type TEXT NOT NULL,
    size INTEGER NOT NULL,
    width INTEGER,
    height INTEGER,
    blurhash TEXT,
    sha256 TEXT NOT NULL,
    alt TEXT,
    tags TEXT NOT NULL DEFAULT '[]',
    focal_x REAL,
    focal_y REAL,
    access TEXT NOT NULL DEFAULT 'public',
    signing_key TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    created_by TEXT
  );
  CREATE INDEX assets_workspace_created ON assets (workspace_id, created_at, id);
  CREATE INDEX assets_workspace_sha256 ON assets (workspace_id, sha256);
  `,
];

/** `upTo`: the version to stop at (tests build the database of an earlier version with it). */
export function migrate(db: Database.Database, upTo = MIGRATIONS.length): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
  const run = db.transaction(() => {
    const row = db.prepare('SELECT MAX(version) AS version FROM schema_migrations').get() as { version: number | null };
    const current = row.version ?? 0;
    MIGRATIONS.slice(current, Math.max(current, upTo)).forEach((sql, index) => {
      db.exec(sql);
      db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(current + index + 1, Date.now());
    });
  });
  run.immediate();
}
