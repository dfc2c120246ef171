// A model and a page of its records in one statement: one round trip to PostgreSQL for a listing instead of two.
import type { Pool, QueryArrayConfig } from 'pg';
import { MAX_LIMIT, type ListWindow, type RecordSort } from '../../domain/listing.js';
import { pageTooLargeError } from '../../domain/size-limits.js';
import type { StoredRecord } from '../../domain/stored-record.js';
import type { ModelKey, ModelPage, PageReading } from '../store.js';
import { MODEL_COLUMNS, toModel, type ModelRow } from '../rows/model-rows.js';
import { ORDER_BY } from '../rows/record-order.js';
import { recordWithText } from '../rows/record-rows.js';
import { TEXT_VALUES } from './sql.js';

/**
 * A row of the answer, every value as PostgreSQL's text: the record's columns (null on the one row of a model
 * without records in the window), the running total of the page's data bytes (for a model that holds large
 * records), then the model's columns, on the first row only (the model's `fields` are not sent a hundred times).
 */
type PageRow = (string | null)[];
const RUNNING_BYTES = 10;
const FIRST_MODEL_COLUMN = 11;

/**
 * The page's rows: of the model's working copies, or (`served`, the delivery route) of those the delivery route
 * serves, which for a model with drafts are its published copies. Each arm holds the model's condition on drafts as
 * a one-time filter, so only one of them is read, and is ordered and limited itself, so that it is read through its
 * table's index: ordered only as a whole, the union was read whole and sorted (about 90 ms a first page at 100k).
 */
function pageOf(withData: boolean, served: boolean, order: string, step: number, skips: boolean): string {
  const columns = `id, ${withData ? 'data, ' : ''}created_at, updated_at, created_by, updated_by, revision, publish_status, published_revision, published_at`;
  const window = `LIMIT ${step}${skips ? ' OFFSET $4' : ''}`;
  if (!served) return `SELECT ${columns} FROM records WHERE model_id = m.id ORDER BY ${order} ${window}`;
  const arm = (table: string, drafts: string) =>
    `(SELECT ${columns} FROM ${table} WHERE model_id = m.id AND ${drafts} ORDER BY ${order} LIMIT ${skips ? `${step} + $4` : step})`;
  return `${arm('records', 'NOT m.drafts')} UNION ALL ${arm('published_records', 'm.drafts')} ORDER BY ${order} ${window}`;
}

const statements = new Map<string, QueryArrayConfig>();

/**
 * The LIMIT written into a statement: the window's limit rounded up to one of these, the rows past the window's
 * own limit dropped by position. A LIMIT (or OFFSET) that is a parameter makes PostgreSQL cost the plan it keeps
 * for the statement as if a tenth of the model's records were read, so it judged that plan dearer than one made
 * for the values of each call and planned the statement again on every call; with the LIMIT written in and no
 * OFFSET, the kept plan is the one it would make anyway, and the first page is planned once per connection. The
 * steps keep the statements a connection holds few, whatever limits callers send.
 */
const LIMIT_STEPS = [20, MAX_LIMIT];

/**
 * The statement of a key, sort, reading, limit step and whether it skips rows, named: each connection parses it
 * once. The page is the LATERAL subquery, read through the (model_id, created_at | updated_at, id) index; the
 * window over it numbers its rows and, for a model that holds large records, adds up their data bytes in the
 * same pass: such a model gets no `data` past the bound, so no more of it than one answer may carry ever leaves
 * PostgreSQL. Parameters: workspace, id or slug, limit, then the offset (when skipping) and the bound (with data).
 */
function statementFor(
  key: 'id' | 'slug',
  sort: RecordSort,
  withData: boolean,
  step: number,
  skips: boolean,
  served: boolean,
): QueryArrayConfig {
  const name = `model_page_${key}_${sort}_${withData ? 'data' : 'bare'}_${step}${skips ? '_offset' : ''}${served ? '_served' : ''}`;
  let statement = statements.get(name);
  if (!statement) {
    const order = ORDER_BY[sort];
    const bound = skips ? '$5' : '$4';
    const first = 'p.position IS NULL OR p.position = 1';
    const text = `SELECT p.id,
        ${withData ? `CASE WHEN NOT m.has_large_records OR p.running_bytes <= ${bound} THEN p.data::text END` : "'{}'::text"},
        p.created_at, p.updated_at, p.created_by, p.updated_by, p.revision, p.publish_status, p.published_revision,
        p.published_at, CASE WHEN m.has_large_records THEN p.running_bytes END,
        ${MODEL_COLUMNS.map((column) => `CASE WHEN ${first} THEN m.${column} END`).join(', ')}
      FROM models m
      LEFT JOIN LATERAL (
        SELECT page.*, row_number() OVER w AS position,
          ${withData ? 'sum(CASE WHEN m.has_large_records THEN octet_length(page.data::text) END) OVER w' : 'NULL'} AS running_bytes
        FROM (${pageOf(withData, served, order, step, skips)}) page
        WINDOW w AS (ORDER BY ${order} ROWS UNBOUNDED PRECEDING)
      ) p ON p.position <= $3
      WHERE m.workspace_id = $1 AND m.${key} = $2
      ORDER BY p.position`;
    // Values as text: `data` passes through as PostgreSQL wrote it, the model's `fields` text hits the parsed-once
    // cache (sharedJson).
    statement = { name, text, rowMode: 'array', types: TEXT_VALUES };
    statements.set(name, statement);
  }
  return statement;
}

export async function selectModelPage(
  pool: Pool,
  workspaceId: string,
  key: ModelKey,
  window: ListWindow,
  reading: PageReading,
): Promise<ModelPage | null> {
  const { limit, offset, sort } = window;
  if (!Number.isSafeInteger(limit) || limit < 0) throw new Error(`Bad page size ${limit}`);
  const step = LIMIT_STEPS.find((candidate) => limit <= candidate) ?? limit;
  const [column, value] = 'id' in key ? (['id', key.id] as const) : (['slug', key.slug] as const);
  const parameters: unknown[] = [workspaceId, value, limit];
  if (offset > 0) parameters.push(offset);
  const bound = reading.data ? reading.maxDataBytes : null;
  // Without a bound, one no page can reach.
  if (reading.data) parameters.push(bound ?? Number.MAX_SAFE_INTEGER);
  const statement = statementFor(column, sort, reading.data, step, offset > 0, reading.served === true);
  const { rows } = await pool.query<PageRow>({ ...statement, values: parameters });
  const first = rows[0];
  if (!first) return null;
  const model = modelOf(first);
  if (first[0] === null) return { model, items: [] };
  if (bound !== null && model.hasLargeRecords) {
    const fitting = rows.findIndex((row) => Number(row[RUNNING_BYTES]) > bound);
    if (fitting !== -1) throw pageTooLargeError(fitting, bound);
  }
  const items = new Array<StoredRecord>(rows.length);
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index]!;
    items[index] = recordWithText(
      row[0]!,
      model.id,
      model.workspaceId,
      row[1]!,
      row[2]!,
      row[3]!,
      row[4] ?? null,
      row[5] ?? null,
      row[6]!,
      row[7] ?? null,
      row[8] ?? null,
      row[9] ?? null,
    );
  }
  return { model, items };
}

function modelOf(row: PageRow): ModelPage['model'] {
  const columns: Record<string, unknown> = {};
  MODEL_COLUMNS.forEach((column, index) => (columns[column] = row[FIRST_MODEL_COLUMN + index]));
  columns.has_large_records = columns.has_large_records === 't';
  columns.drafts = columns.drafts === 't';
  return toModel(columns as unknown as ModelRow);
}
