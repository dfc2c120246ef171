// The statements of assets (docs/media.md), the same on both databases; each takes the placeholders of its values
// (`?` on SQLite, `$n` on PostgreSQL), and the list and update statements the few expressions the dialects write
// differently (AssetDialect).
import type { AssetChange, AssetListQuery } from '../contract/assets.js';

/** What the two databases write differently in the asset statements. */
export interface AssetDialect {
  /** Case-insensitive (every letter, not only A-Z): the text `needle` is in the text `haystack`. */
  contains(haystack: string, needle: string): string;
  /** A FROM item: the strings of the JSON array `json` as rows of `<alias>.value`. */
  arrayElements(json: string, alias: string): string;
  /** A FROM item: the values of the JSON object `json` as rows of `<alias>.value`. */
  objectValues(json: string, alias: string): string;
  /** Text as a name sort orders it: its case folded, then compared byte by byte. */
  sortText(text: string): string;
  /** A placeholder of JSON text as the column stores it. */
  json(placeholder: string): string;
  /** The placeholder of the `n`th value (from 1). */
  placeholder(n: number): string;
}

/** Values bound in order, each answered by its placeholder. */
export class SqlValues {
  readonly values: unknown[] = [];

  constructor(private readonly dialect: Pick<AssetDialect, 'placeholder'>) {}

  add(value: unknown): string {
    this.values.push(value);
    return this.dialect.placeholder(this.values.length);
  }
}

/**
 * An asset's columns as read: its author's email in place of the user id (null when that user is gone), and its
 * usage, the records whose media fields hold it (their links).
 */
export const ASSET_COLUMNS = `a.id, a.workspace_id, a.filename, a.mime_type, a.type, a.size, a.width, a.height, a.blurhash,
  a.sha256, a.alt, a.tags, a.focal_x, a.focal_y, a.access, a.signing_key, a.created_at, a.updated_at,
  (SELECT email FROM users u WHERE u.id = a.created_by) AS created_by,
  (SELECT count(DISTINCT l.source_id) FROM record_links l WHERE l.target_id = a.id) AS usage`;

/** The columns insertAsset's values are for, in order. */
export const INSERTED_ASSET_COLUMNS = [
  'id',
  'workspace_id',
  'filename',
  'mime_type',
  'type',
  'size',
  'width',
  'height',
  'blurhash',
  'sha256',
  'alt',
  'tags',
  'access',
  'signing_key',
  'created_at',
  'updated_at',
  'created_by',
] as const;

export function insertAsset(values: readonly string[]): string {
  return `INSERT INTO assets (${INSERTED_ASSET_COLUMNS.join(', ')}) VALUES (${values.join(', ')})`;
}

export function selectAsset(workspaceId: string, id: string): string {
  return `SELECT ${ASSET_COLUMNS} FROM assets a WHERE a.workspace_id = ${workspaceId} AND a.id = ${id}`;
}

/** `idCondition`: a condition on `a.id` (the dialect's way of taking a list of ids). */
export function selectAssets(workspaceId: string, idCondition: string): string {
  return `SELECT ${ASSET_COLUMNS} FROM assets a WHERE a.workspace_id = ${workspaceId} AND ${idCondition}`;
}

const ORDERS: Readonly<Record<string, (dialect: AssetDialect) => string>> = {
  createdAt_desc: () => 'a.created_at DESC, a.id DESC',
  createdAt_asc: () => 'a.created_at, a.id',
  filename_asc: (dialect) => `${dialect.sortText('a.filename')}, a.id`,
  filename_desc: (dialect) => `${dialect.sortText('a.filename')} DESC, a.id DESC`,
  size_asc: () => 'a.size, a.id',
  size_desc: () => 'a.size DESC, a.id DESC',
};

/** The condition of a list's filter on `assets a` (search, type, tags), its values added to `values`. */
function listCondition(dialect: AssetDialect, workspaceId: string, query: AssetListQuery, values: SqlValues): string {
  const conditions = [`a.workspace_id = ${values.add(workspaceId)}`];
  if (query.search !== null && query.search !== '') {
    const inTags = `EXISTS (SELECT 1 FROM ${dialect.arrayElements('a.tags', 't')} WHERE ${dialect.contains('t.value', values.add(query.search))})`;
    const inAlt = `EXISTS (SELECT 1 FROM ${dialect.objectValues('a.alt', 'v')} WHERE ${dialect.contains('v.value', values.add(query.search))})`;
    conditions.push(`(${dialect.contains('a.filename', values.add(query.search))} OR ${inTags} OR ${inAlt})`);
  }
  if (query.type !== null) conditions.push(`a.type = ${values.add(query.type)}`);
  if (query.tags !== null && query.tags.length > 0) {
    // Holds every tag asked for: none of them is missing from the asset's.
    const wanted = dialect.arrayElements(dialect.json(values.add(JSON.stringify(query.tags))), 'wanted');
    conditions.push(
      `NOT EXISTS (SELECT 1 FROM ${wanted} WHERE wanted.value NOT IN (SELECT held.value FROM ${dialect.arrayElements('a.tags', 'held')}))`,
    );
  }
  return conditions.join(' AND ');
}

/** A page of the workspace's assets and the count of all that match, each a statement with its values. */
export function listAssets(
  dialect: AssetDialect,
  workspaceId: string,
  query: AssetListQuery,
): { page: { text: string; values: unknown[] }; count: { text: string; values: unknown[] } } {
  const counted = new SqlValues(dialect);
  const count = `SELECT count(*) AS n FROM assets a WHERE ${listCondition(dialect, workspaceId, query, counted)}`;
  const paged = new SqlValues(dialect);
  const where = listCondition(dialect, workspaceId, query, paged);
  const order = (ORDERS[query.sort] ?? ORDERS.createdAt_desc!)(dialect);
  const page = `SELECT ${ASSET_COLUMNS} FROM assets a WHERE ${where} ORDER BY ${order}
    LIMIT ${paged.add(query.limit)} OFFSET ${paged.add(query.offset)}`;
  return { page: { text: page, values: paged.values }, count: { text: count, values: counted.values } };
}

/** The update of the members `change` has, and of `updated_at`. */
export function updateAsset(
  dialect: AssetDialect,
  workspaceId: string,
  id: string,
  change: AssetChange,
  now: number,
): { text: string; values: unknown[] } {
  const values = new SqlValues(dialect);
  const sets: string[] = [];
  if (change.filename !== undefined) sets.push(`filename = ${values.add(change.filename)}`);
  if (change.alt !== undefined) {
    sets.push(`alt = ${dialect.json(values.add(change.alt === null ? null : JSON.stringify(change.alt)))}`);
  }
  if (change.tags !== undefined) sets.push(`tags = ${dialect.json(values.add(JSON.stringify(change.tags)))}`);
  if (change.focalPoint !== undefined) {
    sets.push(`focal_x = ${values.add(change.focalPoint?.x ?? null)}`, `focal_y = ${values.add(change.focalPoint?.y ?? null)}`);
  }
  if (change.access !== undefined) sets.push(`access = ${values.add(change.access)}`);
  sets.push(`updated_at = ${values.add(now)}`);
  const text = `UPDATE assets SET ${sets.join(', ')} WHERE workspace_id = ${values.add(workspaceId)} AND id = ${values.add(id)}`;
  return { text, values: values.values };
}

/** The records of the workspace holding an asset (its links), by record then field; `limit` null: all. */
export function assetUses(workspaceId: string, id: string, limit: string | null): string {
  return `SELECT l.source_id, m.slug, l.field_key FROM record_links l
    JOIN records r ON r.id = l.source_id JOIN models m ON m.id = r.model_id
    WHERE r.workspace_id = ${workspaceId} AND l.target_id = ${id}
    ORDER BY l.source_id, l.field_key${limit === null ? '' : ` LIMIT ${limit}`}`;
}

export function deleteAssetLinks(id: string): string {
  return `DELETE FROM record_links WHERE target_id = ${id}`;
}

export function deleteAsset(id: string): string {
  return `DELETE FROM assets WHERE id = ${id}`;
}

/** A row when another asset of the workspace has the same content (its bytes are still needed). */
export function otherAssetWithContent(workspaceId: string, sha256: string, id: string): string {
  return `SELECT 1 AS used FROM assets WHERE workspace_id = ${workspaceId} AND sha256 = ${sha256} AND id <> ${id} LIMIT 1`;
}

/**
 * Moves the workspace's content version (the delivery route's ETag): what a record's populated media field shows of
 * an asset changed, or it is gone.
 */
export function moveWorkspaceContentVersion(workspaceId: string): string {
  return `UPDATE workspaces SET content_version = content_version + 1 WHERE id = ${workspaceId}`;
}

/**
 * Stored contents (workspace, SHA-256, a MIME type) after the key (`workspaceId`, `sha256`) in key order: what
 * `copy` moves between storages, page by page.
 */
export function storedContents(workspaceId: string, sha256: string, limit: string): string {
  return `SELECT workspace_id, sha256, min(mime_type) AS mime_type FROM assets
    WHERE workspace_id > ${workspaceId} OR (workspace_id = ${workspaceId} AND sha256 > ${sha256})
    GROUP BY workspace_id, sha256 ORDER BY workspace_id, sha256 LIMIT ${limit}`;
}
