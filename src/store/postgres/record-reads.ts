import type { Pool } from 'pg';
import type { FilterNode } from '../../domain/filter.js';
import type { ListWindow, RecordQuery } from '../../domain/listing.js';
import { pageTooLargeError } from '../../domain/size-limits.js';
import type { StoredRecord } from '../../domain/stored-record.js';
import type { ManyReading, ModelKey, ModelPage, PageCursor, PageReading } from '../store.js';
import { FULL_PAGE } from '../store.js';
import { TEXT_VALUES } from './sql.js';
import { afterCursor, ORDER_BY } from '../rows/record-order.js';
import { toRecord, type RecordRow } from '../rows/record-rows.js';
import { selectModelPage } from './model-page.js';
import { CountCache } from '../kept/count-cache.js';
import { findRows, PostgresFilteredQuery } from './record-filter.js';
import type { KeptReads } from '../kept/kept-reads.js';
import { foundOrNone, splitByKept } from '../kept/kept-by-id.js';
import { onTable, type RecordTable } from '../query/record-table.js';

export const COLUMN_LIST = [
  'id',
  'model_id',
  'workspace_id',
  'data',
  'created_at',
  'updated_at',
  'created_by',
  'updated_by',
  'revision',
  'publish_status',
  'published_revision',
  'published_at',
] as const;
export const COLUMNS = COLUMN_LIST.join(', ');
const COLUMN_LIST_WITHOUT_DATA = COLUMN_LIST.map((column) => (column === 'data' ? "'{}'::jsonb AS data" : column));
const COLUMNS_WITHOUT_DATA = COLUMN_LIST_WITHOUT_DATA.join(', ');

/** The reads of PostgreSQL's record store: by id, by ids, pages, filtered finds and counts. */
export class PostgresRecordReads {
  private readonly counts: CountCache;

  constructor(
    protected readonly pool: Pool,
    /** Records a sole server keeps for readers that share them (kept-reads.ts; null: always read). */
    private readonly kept: KeptReads<StoredRecord | null> | null = null,
    /** The table read: working copies, or the published copies of drafts models' records. */
    private readonly table: RecordTable = 'records',
  ) {
    this.counts = new CountCache(pool);
    this.published = table === 'records' ? new PostgresRecordReads(pool, kept, 'published_records') : null;
  }

  /** The reads of the published copies (on the reads of working copies; null on those of published copies). */
  readonly published: PostgresRecordReads | null;

  async get(workspaceId: string, id: string): Promise<StoredRecord | null> {
    const { rows } = await this.pool.query<RecordRow>({
      name: `${this.table}_get`,
      text: onTable(`SELECT ${COLUMNS} FROM records WHERE workspace_id = $1 AND id = $2`, this.table),
      values: [workspaceId, id],
      types: TEXT_VALUES,
    });
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async getMany(workspaceId: string, ids: readonly string[], reading: ManyReading = {}): Promise<StoredRecord[] | 'too-large'> {
    if (ids.length === 0) return [];
    const parameters: unknown[] = [workspaceId, ids];
    let where = 'workspace_id = $1 AND id = ANY($2::text[])';
    if (reading.modelId) where += ` AND model_id = $${parameters.push(reading.modelId)}`;
    const maxDataBytes = reading.maxDataBytes ?? null;
    if (maxDataBytes === null && reading.modelId && reading.shared && this.kept) {
      return this.keptOfModel(workspaceId, ids, reading.modelId);
    }
    // Named (a few texts: with or without a model, with or without a bound): parsed once per connection.
    const name = `${this.table}_many${reading.modelId ? '_model' : ''}${maxDataBytes === null ? '' : '_bounded'}`;
    if (maxDataBytes === null) {
      const text = onTable(`SELECT ${COLUMNS} FROM records WHERE ${where}`, this.table);
      const { rows } = await this.pool.query<RecordRow>({ name, text, values: parameters, types: TEXT_VALUES });
      return rows.map(toRecord);
    }
    // Measured by the database in the same query: over the bound, the rows come without their data.
    const bound = `$${parameters.push(maxDataBytes)}`;
    const selected = COLUMN_LIST.map((column) =>
      column === 'data' ? `CASE WHEN total_bytes <= ${bound} THEN data END AS data` : column,
    );
    const text = onTable(
      `SELECT ${selected.join(', ')}, total_bytes FROM (
         SELECT ${COLUMNS}, sum(octet_length(data::text)) OVER () AS total_bytes FROM records WHERE ${where}) measured`,
      this.table,
    );
    const { rows } = await this.pool.query<RecordRow & { total_bytes: string }>({
      name,
      text,
      values: parameters,
      types: TEXT_VALUES,
    });
    if (rows.length > 0 && Number(rows[0]!.total_bytes) > maxDataBytes) return 'too-large';
    return rows.map(({ total_bytes: _total, ...row }) => toRecord(row));
  }

  /** The records of `ids` of the model, those a sole server kept given again (an id kept as missing is none). */
  private async keptOfModel(workspaceId: string, ids: readonly string[], modelId: string): Promise<StoredRecord[]> {
    const kept = this.kept!;
    const keyOf = (id: string) => `${this.table}\u0000${workspaceId}\u0000${modelId}\u0000${id}`;
    const { found, missing } = splitByKept(ids, (id) => kept.current(keyOf(id)));
    if (missing.length === 0) return found;
    const moment = kept.moment();
    const read = (await this.getMany(workspaceId, missing, { modelId })) as StoredRecord[];
    for (const [id, record] of foundOrNone(missing, read)) kept.remember(keyOf(id), record, moment);
    return [...found, ...read];
  }

  async existingIds(modelId: string, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const { rows } = await this.pool.query<{ id: string }>(
      onTable('SELECT id FROM records WHERE model_id = $1 AND id = ANY($2::text[])', this.table),
      [modelId, ids],
    );
    return new Set(rows.map((row) => row.id));
  }

  async list(modelId: string, window: ListWindow, after?: PageCursor, reading: PageReading = FULL_PAGE): Promise<StoredRecord[]> {
    const order = ORDER_BY[window.sort];
    const columns = reading.data ? COLUMNS : COLUMNS_WITHOUT_DATA;
    const [recordsPageSql, parameters] = after
      ? [
          `SELECT ${columns} FROM records WHERE model_id = $1 AND ${afterCursor(window.sort, '$2', '$3')} ORDER BY ${order} LIMIT $4`,
          [modelId, after.time, after.id, window.limit],
        ]
      : [
          `SELECT ${columns} FROM records WHERE model_id = $1 ORDER BY ${order} LIMIT $2 OFFSET $3`,
          [modelId, window.limit, window.offset],
        ];
    const pageSql = onTable(recordsPageSql, this.table);
    const bound = reading.data ? reading.maxDataBytes : null;
    if (bound === null) {
      return (await this.pool.query<RecordRow>({ text: pageSql, values: parameters, types: TEXT_VALUES })).rows.map(toRecord);
    }
    const sql = boundedPageSql(pageSql, COLUMN_LIST, 'octet_length(data::text)', order, `$${parameters.length + 1}`);
    const { rows } = await this.pool.query<RecordRow & { running_bytes: string }>({
      text: sql,
      values: [...parameters, bound],
      types: TEXT_VALUES,
    });
    const fitting = rows.findIndex((row) => Number(row.running_bytes) > bound);
    if (fitting !== -1) throw pageTooLargeError(fitting, bound);
    return rows.map(toRecord);
  }

  async listWithModel(workspaceId: string, key: ModelKey, window: ListWindow, reading: PageReading): Promise<ModelPage | null> {
    return selectModelPage(this.pool, workspaceId, key, window, reading);
  }

  async find(modelId: string, query: RecordQuery, reading: PageReading = FULL_PAGE): Promise<StoredRecord[]> {
    const columns = reading.data ? COLUMN_LIST : COLUMN_LIST_WITHOUT_DATA;
    const rows = await findRows<RecordRow>(
      this.pool,
      modelId,
      query,
      columns,
      reading.data ? reading.maxDataBytes : null,
      this.table,
    );
    return rows.map(toRecord);
  }

  count(modelId: string, filter: FilterNode): Promise<number> {
    const sql = new PostgresFilteredQuery(modelId, filter, this.table);
    return this.counts.count(modelId, sql.count(), sql.values);
  }
}

/**
 * A page query with a bound on its data: `pageSql` selects `columns` (which include `data`) in `order`; the
 * answer has the same rows, but a row whose running total of data bytes (in page order) is over the bound comes
 * with `data` NULL, and every row carries that total as `running_bytes`. PostgreSQL measures the data itself, so no
 * more of it than the bound is ever sent to this process.
 */
function boundedPageSql(pageSql: string, columns: readonly string[], dataBytes: string, order: string, bound: string): string {
  const selected = columns.map((column) =>
    column === 'data' ? `CASE WHEN running_bytes <= ${bound} THEN data END AS data` : column,
  );
  return (
    `SELECT ${selected.join(', ')}, running_bytes FROM (` +
    `SELECT page.*, sum(${dataBytes}) OVER (ORDER BY ${order} ROWS UNBOUNDED PRECEDING) AS running_bytes FROM (${pageSql}) page` +
    `) sized ORDER BY ${order}`
  );
}
