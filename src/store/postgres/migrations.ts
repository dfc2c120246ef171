import type { Pool } from 'pg';
import { inTransaction, quoteIdentifier } from './sql.js';

/**
 * Schema versions in order; each runs once, inside the migration transaction. The same tables, columns and
 * indexes as the SQLite migration. Times are `bigint` epoch milliseconds (as in SQLite), record data is `jsonb`;
 * model definitions are `json`, which keeps their text (key order) exactly as written. Key columns use the "C"
 * collation so ids order byte by byte, as in SQLite.
 */
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE organisations (
    id text COLLATE "C" PRIMARY KEY,
    slug text NOT NULL UNIQUE,
    created_at bigint NOT NULL
  );
  CREATE TABLE workspaces (
    id text COLLATE "C" PRIMARY KEY,
    org_id text COLLATE "C" NOT NULL REFERENCES organisations(id),
    slug text NOT NULL,
    write_budget integer,
    created_at bigint NOT NULL,
    UNIQUE (org_id, slug)
  );
  CREATE TABLE users (
    id text COLLATE "C" PRIMARY KEY,
    email text NOT NULL UNIQUE,
    password_hash text,
    created_at bigint NOT NULL
  );
  CREATE TABLE memberships (
    workspace_id text COLLATE "C" NOT NULL REFERENCES workspaces(id),
    user_id text COLLATE "C" NOT NULL REFERENCES users(id),
    role text NOT NULL,
    PRIMARY KEY (workspace_id, user_id)
  );
  CREATE TABLE api_tokens (
    id text COLLATE "C" PRIMARY KEY,
    token_hash text NOT NULL UNIQUE,
    workspace_id text COLLATE "C" NOT NULL REFERENCES workspaces(id),
    user_id text COLLATE "C" NOT NULL REFERENCES users(id),
    name text,
    created_at bigint NOT NULL,
    expires_at bigint,
    revoked_at bigint
  );
  CREATE TABLE models (
    id text COLLATE "C" PRIMARY KEY,
    workspace_id text COLLATE "C" NOT NULL REFERENCES workspaces(id),
    slug text NOT NULL,
    name text NOT NULL,
    description text,
    display_field text NOT NULL,
    fields json NOT NULL,
    product json,
    delivery_access text NOT NULL,
    record_count integer NOT NULL DEFAULT 0,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    CONSTRAINT models_workspace_slug UNIQUE (workspace_id, slug)
  );
  CREATE TABLE records (
    id text COLLATE "C" PRIMARY KEY,
    model_id text COLLATE "C" NOT NULL REFERENCES models(id),
    workspace_id text COLLATE "C" NOT NULL,
    data jsonb NOT NULL,
    sku text COLLATE "C",
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    created_by text,
    updated_by text
  );
  CREATE UNIQUE INDEX records_model_sku ON records (model_id, sku);
  CREATE INDEX records_model_created ON records (model_id, created_at, id);
  CREATE INDEX records_model_updated ON records (model_id, updated_at, id);
  CREATE TABLE record_links (
    target_id text COLLATE "C" NOT NULL,
    source_id text COLLATE "C" NOT NULL,
    field_key text COLLATE "C" NOT NULL,
    PRIMARY KEY (target_id, source_id, field_key)
  );
  CREATE INDEX record_links_source ON record_links (source_id);
  `,
  `
  CREATE TABLE write_budget (
    key varchar(255) PRIMARY KEY,
    points integer NOT NULL DEFAULT 0,
    expire bigint
  );
  `,
  `
  ALTER TABLE models ADD COLUMN write_version bigint NOT NULL DEFAULT 0;
  `,
  `
  CREATE TABLE sessions (
    id_hash text COLLATE "C" PRIMARY KEY,
    user_id text COLLATE "C" NOT NULL REFERENCES users(id),
    csrf_token text NOT NULL,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    last_seen bigint NOT NULL
  );
  CREATE INDEX sessions_user ON sessions (user_id);
  CREATE INDEX sessions_expires ON sessions (expires_at);
  CREATE INDEX api_tokens_workspace ON api_tokens (workspace_id, created_at);
  `,
  `
  ALTER TABLE models ADD COLUMN has_large_records boolean NOT NULL DEFAULT false;
  UPDATE models SET has_large_records = true WHERE id IN (SELECT DISTINCT model_id FROM records WHERE length(data::text) > 16384);
  `,
  `
  ALTER TABLE models ADD COLUMN icon text;
  ALTER TABLE models ADD COLUMN color text;
  ALTER TABLE workspaces ADD COLUMN default_locale text NOT NULL DEFAULT 'en';
  `,
  // The delivery route's content version (HTTP caching): the models' counters move with record inserts and deletes
  // and model changes, the content_counters of a workspace with patches and updates (spread over a few rows so that
  // concurrent patches of one model do not queue on one row), the workspace's when a model is deleted.
  `
  ALTER TABLE models ADD COLUMN content_version bigint NOT NULL DEFAULT 0;
  ALTER TABLE workspaces ADD COLUMN content_version bigint NOT NULL DEFAULT 0;
  CREATE TABLE content_counters (
    workspace_id text COLLATE "C" NOT NULL,
    shard smallint NOT NULL,
    changes bigint NOT NULL,
    PRIMARY KEY (workspace_id, shard)
  );
  `,
  // When each API token was last used (token list), written at most once a minute per token.
  `
  ALTER TABLE api_tokens ADD COLUMN last_used_at bigint;
  `,
  // Webhooks: as in the SQLite migration. `sequence` is an identity (one sequence for all workspaces, so it
  // increases within each without a counter row that every write of the workspace would wait on).
  `
  CREATE TABLE webhooks (
    id text COLLATE "C" PRIMARY KEY,
    workspace_id text COLLATE "C" NOT NULL REFERENCES workspaces(id),
    url text NOT NULL,
    events jsonb NOT NULL,
    model_ids jsonb,
    description text,
    active boolean NOT NULL,
    secret text NOT NULL,
    previous_secret text,
    previous_secret_until bigint,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL
  );
  CREATE INDEX webhooks_workspace ON webhooks (workspace_id, created_at);
  CREATE TABLE webhook_events (
    sequence bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id text COLLATE "C" NOT NULL UNIQUE,
    workspace_id text COLLATE "C" NOT NULL,
    type text NOT NULL,
    model_id text COLLATE "C",
    model_slug text,
    payload text NOT NULL,
    created_at bigint NOT NULL
  );
  CREATE INDEX webhook_events_created ON webhook_events (created_at);
  CREATE TABLE webhook_deliveries (
    id text COLLATE "C" PRIMARY KEY,
    webhook_id text COLLATE "C" NOT NULL,
    event_id text COLLATE "C" NOT NULL,
    event_sequence bigint NOT NULL,
    status text NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    last_status_code integer,
    last_error text,
    next_attempt_at bigint,
    locked_until bigint,
    claim_token text,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL
  );
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at, event_sequence) WHERE status = 'pending';
  CREATE INDEX webhook_deliveries_log ON webhook_deliveries (webhook_id, created_at, id);
  CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);
  CREATE TABLE webhook_attempts (
    delivery_id text COLLATE "C" NOT NULL,
    attempt integer NOT NULL,
    status_code integer,
    error text,
    duration_ms integer NOT NULL,
    created_at bigint NOT NULL,
    PRIMARY KEY (delivery_id, attempt)
  );
  `,
  // Members: as in the SQLite migration.
  `
  ALTER TABLE memberships ADD COLUMN created_at bigint;
  CREATE TABLE sign_in_links (
    token_hash text COLLATE "C" PRIMARY KEY,
    workspace_id text COLLATE "C" NOT NULL REFERENCES workspaces(id),
    user_id text COLLATE "C" NOT NULL REFERENCES users(id),
    created_by text NOT NULL,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    used_at bigint
  );
  CREATE INDEX sign_in_links_user ON sign_in_links (user_id, workspace_id);
  `,
  // Webhooks, one outbox row per write: as in the SQLite migration.
  `
  CREATE TABLE webhook_cursors (
    webhook_id text COLLATE "C" PRIMARY KEY,
    last_sequence bigint NOT NULL
  );
  INSERT INTO webhook_cursors (webhook_id, last_sequence)
    SELECT id, coalesce((SELECT max(sequence) FROM webhook_events), 0) FROM webhooks;
  DROP INDEX webhook_deliveries_log;
  CREATE INDEX webhook_deliveries_log ON webhook_deliveries (webhook_id, created_at, event_sequence, id);
  `,
  // Which process sends to a webhook, and when its deliveries were last made (PostgreSQL only: SQLite is served by
  // one process). The index finds a webhook's due deliveries without reading the others' backlog.
  `
  ALTER TABLE webhook_cursors ADD COLUMN last_made bigint NOT NULL DEFAULT 0;
  CREATE TABLE webhook_leases (
    webhook_id text COLLATE "C" PRIMARY KEY REFERENCES webhooks(id) ON DELETE CASCADE,
    holder text COLLATE "C" NOT NULL,
    held_until bigint NOT NULL
  );
  CREATE INDEX webhook_deliveries_webhook_due ON webhook_deliveries (webhook_id, next_attempt_at) WHERE status = 'pending';
  `,
  // A create's statement calls it to undo itself when the model's definition moved after its data was checked
  // (definition-lock.ts): no plain SQL expression raises an error of one's own. PostgreSQL only: SQLite checks in
  // JavaScript, inside the write's transaction.
  `
  CREATE FUNCTION checks_outdated() RETURNS boolean LANGUAGE plpgsql AS $$
  BEGIN
    RAISE EXCEPTION 'the model''s definition changed after the data was checked' USING ERRCODE = 'CS001';
  END
  $$;
  `,
  // A webhook's due deliveries in claim order straight from the index: the claim takes the first few of a backlog of
  // any size without sorting it.
  `
  DROP INDEX webhook_deliveries_webhook_due;
  CREATE INDEX webhook_deliveries_webhook_due ON webhook_deliveries (webhook_id, next_attempt_at, event_sequence)
    WHERE status = 'pending';
  `,
  // History (docs/lifecycle.md): the record row is its current revision; a change keeps the data it replaces here.
  `
  ALTER TABLE records ADD COLUMN revision integer NOT NULL DEFAULT 1;
  ALTER TABLE records ADD COLUMN revision_operation text NOT NULL DEFAULT 'create';
  CREATE TABLE record_revisions (
    record_id text COLLATE "C" NOT NULL,
    revision integer NOT NULL,
    workspace_id text COLLATE "C" NOT NULL,
    model_id text COLLATE "C" NOT NULL,
    operation text NOT NULL,
    data jsonb NOT NULL,
    created_at bigint NOT NULL,
    created_by text,
    PRIMARY KEY (record_id, revision)
  );
  CREATE INDEX record_revisions_deleted ON record_revisions (created_at) WHERE operation = 'delete';
  `,
  // Drafts (docs/lifecycle.md): a drafts model's records keep their published copies in published_records, with the
  // columns of records that the reads select, so that the delivery route reads either table with the same SQL.
  // publish_status: NULL on a model without drafts, else draft | published | changed.
  `
  ALTER TABLE models ADD COLUMN drafts boolean NOT NULL DEFAULT false;
  ALTER TABLE models ADD COLUMN published_count integer NOT NULL DEFAULT 0;
  ALTER TABLE records ADD COLUMN publish_status text;
  ALTER TABLE records ADD COLUMN published_revision integer;
  ALTER TABLE records ADD COLUMN published_at bigint;
  CREATE TABLE published_records (
    id text COLLATE "C" PRIMARY KEY,
    model_id text COLLATE "C" NOT NULL,
    workspace_id text COLLATE "C" NOT NULL,
    data jsonb NOT NULL,
    sku text COLLATE "C",
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    created_by text,
    updated_by text,
    revision integer NOT NULL,
    publish_status text NOT NULL DEFAULT 'published',
    published_revision integer NOT NULL,
    published_at bigint NOT NULL
  );
  CREATE INDEX published_records_model_sku ON published_records (model_id, sku);
  CREATE INDEX published_records_model_created ON published_records (model_id, created_at, id);
  CREATE INDEX published_records_model_updated ON published_records (model_id, updated_at, id);
  `,
  // Schedules (docs/lifecycle.md): a publish or unpublish of many records at a set time, carried out by a running serve.
  `
  CREATE TABLE schedules (
    id text COLLATE "C" PRIMARY KEY,
    workspace_id text COLLATE "C" NOT NULL,
    action text NOT NULL,
    at bigint NOT NULL,
    ids jsonb NOT NULL,
    status text NOT NULL DEFAULT 'pending',
    error text,
    created_at bigint NOT NULL,
    created_by text,
    done_at bigint
  );
  CREATE INDEX schedules_due ON schedules (at) WHERE status = 'pending';
  CREATE INDEX schedules_workspace ON schedules (workspace_id, at, id);
  `,
  // The published copies' relation links: what relation filters on the published copies read (record_links are the
  // working copies'). Made at publish from the working copies' links; existing published copies take them as they are.
  `
  CREATE TABLE published_record_links (
    target_id text COLLATE "C" NOT NULL,
    source_id text COLLATE "C" NOT NULL,
    field_key text COLLATE "C" NOT NULL,
    PRIMARY KEY (target_id, source_id, field_key)
  );
  CREATE INDEX published_record_links_source ON published_record_links (source_id);
  INSERT INTO published_record_links (target_id, source_id, field_key)
    SELECT l.target_id, l.source_id, l.field_key FROM record_links l WHERE l.source_id IN (SELECT id FROM published_records);
  `,
  // Assets (docs/media.md): as in the SQLite migration. The focal point is double precision, as SQLite's REAL.
  `
  CREATE TABLE assets (
    id text COLLATE "C" PRIMARY KEY,
    workspace_id text COLLATE "C" NOT NULL,
    filename text NOT NULL,
    mime_type text NOT NULL,
    type text NOT NULL,
    size bigint NOT NULL,
    width integer,
    height integer,
    blurhash text,
    sha256 text COLLATE "C" NOT NULL,
    alt jsonb,
    tags jsonb NOT NULL DEFAULT '[]',
    focal_x double precision,
    focal_y double precision,
    access text NOT NULL DEFAULT 'public',
    signing_key text NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    created_by text
  );
  CREATE INDEX assets_workspace_created ON assets (workspace_id, created_at, id);
  CREATE INDEX assets_workspace_sha256 ON assets (workspace_id, sha256);
  `,
];

/** Any fixed number: the first key of the advisory lock that serialises migrations (the second is the schema). */
const MIGRATION_LOCK_CLASS = 0x43530001;

/**
 * Creates the schema when missing and applies the pending migrations, in one transaction holding an advisory
 * lock, so processes starting at once on one database wait for each other instead of colliding.
 * `schema` null: the connection's current schema (normally `public`).
 */
export async function migrate(pool: Pool, schema: string | null): Promise<void> {
  await inTransaction(pool, async (client) => {
    const target = schema ?? (await client.query<{ schema: string | null }>('SELECT current_schema() AS schema')).rows[0]?.schema;
    if (!target) throw new Error('PostgreSQL: no current schema to create the tables in; add ?schema=<name> to the URL');
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [MIGRATION_LOCK_CLASS, target]);
    if (schema !== null) {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(schema)}`);
      await client.query(`SET LOCAL search_path TO ${quoteIdentifier(schema)}`);
    }
    await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at bigint NOT NULL)');
    const { rows } = await client.query<{ version: number | null }>('SELECT MAX(version) AS version FROM schema_migrations');
    const current = rows[0]?.version ?? 0;
    for (const [index, sql] of MIGRATIONS.slice(current).entries()) {
      await client.query(sql);
      await client.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [
        current + index + 1,
        Date.now(),
      ]);
    }
  });
}
