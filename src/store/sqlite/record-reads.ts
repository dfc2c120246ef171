import type Database from 'better-sqlite3';
import type { FilterNode } from '../../domain/filter.js';
import type { ListWindow, RecordQuery, RecordSort } from '../../domain/listing.js';
import type { StoredRecord } from '../../domain/stored-record.js';
import { pageTooLargeError } from '../../domain/size-limits.js';
import type { ManyReading, ModelKey, ModelPage, PageCursor, PageReading } from '../store.js';
import { FULL_PAGE } from '../store.js';
import { afterCursor, ORDER_BY } from '../rows/record-order.js';
import { recordWithText, toRecord, type RecordRow } from '../rows/record-rows.js';
import { KeptCounts } from '../kept/kept-counts.js';
import { foundOrNone, splitByKept } from '../kept/kept-by-id.js';
import { updatedOrderCursor, updatedOrderSql } from './updated-order.js';
import { selectModelPage } from './model-page.js';
import { countMatching, type FilterStatements, findRows } from './record-filter.js';
import { KeptRecords } from '../kept/kept-records.js';
import { IDS_OF_BOUND_MODEL, OF_BOUND_MODEL } from './model-scope.js';
import { onTable, type RecordTable } from '../query/record-table.js';

/**
 * A listed row as an array (better-sqlite3's raw mode: no object per row), the columns of LIST_COLUMNS. Making the
 * JavaScript values costs far more than SQLite's own work for a page, so only what differs between rows is read:
 * the workspace is the model's.
 */
type ListRow = [
  id: string,
  data: string,
  createdAt: number,
  updatedAt: number,
  createdBy: string | null,
  updatedBy: string | null,
  revision: number,
  ...publication: Publication,
];
/** A record's drafts state (publish_status, published_revision, published_at), the last columns of a row. */
type Publication = [status: string | null, revision: number | null, at: number | null];
const PUBLICATION_COLUMNS = ['publish_status', 'published_revision', 'published_at'] as const;
const LIST_COLUMNS = [
  'id',
  'data',
  'created_at',
  'updated_at',
  'created_by',
  'updated_by',
  'revision',
  ...PUBLICATION_COLUMNS,
] as const;
/** A row of getMany, the columns of MANY_COLUMNS (raw mode, as ListRow; the workspace is the one asked for). */
type ManyRow = [
  id: string,
  modelId: string,
  data: string,
  createdAt: number,
  updatedAt: number,
  createdBy: string | null,
  updatedBy: string | null,
  revision: number,
  ...publication: Publication,
];

const MANY_COLUMNS = [
  'id',
  'model_id',
  'data',
  'created_at',
  'updated_at',
  'created_by',
  'updated_by',
  'revision',
  ...PUBLICATION_COLUMNS,
] as const;
const WITHOUT_DATA = LIST_COLUMNS.map((column) => (column === 'data' ? "'{}' AS data" : column));

/** The reads of SQLite's record store: by id, by ids, pages, filtered finds and counts. */
export class SqliteRecordReads {
  private readonly keptCounts = new KeptCounts();
  private readonly keptRecords = new KeptRecords();
  private readonly selectModelVersion: Database.Statement;
  protected readonly selectById: Database.Statement;
  /** getMany's statements, of any model and of one (which reads no model column: it is the one asked for). */
  private readonly selectMany: { any: Database.Statement; ofModel: Database.Statement };
  private readonly selectManySizes: { any: Database.Statement; ofModel: Database.Statement };
  private readonly listStatements = new Map<string, Database.Statement>();
  private readonly workspaces = new Map<string, string>();
  /** The reads of the published copies (on the reads of working copies; null on those of published copies). */
  readonly published: SqliteRecordReads | null;

  constructor(
    protected readonly db: Database.Database,
    protected readonly filterStatements: FilterStatements,
    /** The table read: working copies, or the published copies of drafts models' records. */
    protected readonly table: RecordTable = 'records',
  ) {
    const prepare = (sql: string) => db.prepare(onTable(sql, table));
    this.published = table === 'records' ? new SqliteRecordReads(db, filterStatements, 'published_records') : null;
    this.selectById = prepare('SELECT * FROM records WHERE workspace_id = ? AND id = ?');
    this.selectModelVersion = db.prepare('SELECT workspace_id, content_version FROM models WHERE id = ?');
    const inIds = 'workspace_id = ? AND id IN (SELECT value FROM json_each(?))';
    const ofModel = `workspace_id = ? AND ${IDS_OF_BOUND_MODEL}`;
    this.selectMany = {
      any: prepare(`SELECT ${MANY_COLUMNS.join(', ')} FROM records WHERE ${inIds}`).raw(true),
      // The model's records: a page's columns (LIST_COLUMNS), the model being the one asked for.
      ofModel: prepare(`SELECT ${LIST_COLUMNS.join(', ')} FROM records WHERE ${ofModel}`).raw(true),
    };
    this.selectManySizes = {
      any: prepare(`SELECT sum(octet_length(data)) AS bytes FROM records WHERE ${inIds}`),
      ofModel: prepare(`SELECT sum(octet_length(data)) AS bytes FROM records WHERE ${ofModel}`),
    };
  }

  async get(workspaceId: string, id: string): Promise<StoredRecord | null> {
    const row = this.selectById.get(workspaceId, id) as RecordRow | undefined;
    return row ? toRecord(row) : null;
  }

  async getMany(workspaceId: string, ids: readonly string[], reading: ManyReading = {}): Promise<StoredRecord[] | 'too-large'> {
    if (ids.length === 0) return [];
    const modelId = reading.modelId ?? null;
    const maxDataBytes = reading.maxDataBytes ?? null;
    if (modelId !== null && maxDataBytes === null && reading.shared && !this.db.inTransaction) {
      // Not inside the write group's transaction: what it wrote (and the version it moved) may still be undone.
      return this.keptOfModel(workspaceId, ids, modelId);
    }
    const idsJson = JSON.stringify(ids);
    if (modelId === null) {
      if (maxDataBytes !== null && this.manyBytes('any', [workspaceId, idsJson]) > maxDataBytes) return 'too-large';
      const rows = this.selectMany.any.all(workspaceId, idsJson) as ManyRow[];
      return rows.map((row) =>
        recordWithText(row[0], row[1], workspaceId, row[2], row[3], row[4], row[5], row[6], row[7], row[8], row[9], row[10]),
      );
    }
    if (maxDataBytes !== null && this.manyBytes('ofModel', [workspaceId, idsJson, modelId]) > maxDataBytes) return 'too-large';
    return this.ofModel(workspaceId, idsJson, modelId);
  }

  /** The records of `ids` of the model, the ones kept at its current content version given again (KeptRecords). */
  private keptOfModel(workspaceId: string, ids: readonly string[], modelId: string): StoredRecord[] {
    const model = this.selectModelVersion.get(modelId) as { workspace_id: string; content_version: number } | undefined;
    // No such model in the workspace: no records (as the query would find).
    if (!model || model.workspace_id !== workspaceId) return [];
    const kept = this.keptRecords.at(modelId, model.content_version);
    const { found, missing } = splitByKept(ids, (id) => kept.get(id));
    if (missing.length === 0) return found;
    const read = this.ofModel(workspaceId, JSON.stringify(missing), modelId);
    this.keptRecords.keep(modelId, model.content_version, foundOrNone(missing, read));
    return [...found, ...read];
  }

  /** The model's records among the ids (a JSON array). */
  private ofModel(workspaceId: string, idsJson: string, modelId: string): StoredRecord[] {
    const rows = this.selectMany.ofModel.all(workspaceId, idsJson, modelId) as ListRow[];
    return rows.map((row) =>
      recordWithText(row[0], modelId, workspaceId, row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8], row[9]),
    );
  }

  /** The data bytes of getMany's records; SQLite tells a value's size from the row header, without reading it. */
  private manyBytes(kind: 'any' | 'ofModel', parameters: unknown[]): number {
    return (this.selectManySizes[kind].get(...parameters) as { bytes: number | null }).bytes ?? 0;
  }

  async existingIds(modelId: string, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = this.db
      .prepare(onTable(`SELECT id FROM records WHERE ${IDS_OF_BOUND_MODEL}`, this.table))
      .all(JSON.stringify(ids), modelId) as {
      id: string;
    }[];
    return new Set(rows.map((row) => row.id));
  }

  async list(modelId: string, window: ListWindow, after?: PageCursor, reading: PageReading = FULL_PAGE): Promise<StoredRecord[]> {
    const arm = after ? [modelId, after.time, after.id] : [modelId];
    // An updatedAt page binds the model (and cursor) once for each of its two arms (updated-order.ts).
    const parameters = isUpdatedOrder(window.sort) ? [...arm, ...arm] : arm;
    if (!after) parameters.push(window.offset);
    const bound = reading.data ? reading.maxDataBytes : null;
    // The sizes first: SQLite tells a value's size from the row header, without reading the value.
    if (bound !== null)
      refuseOversizedPage(
        this.listStatement(window.sort, window.limit, after !== undefined, 'sizes').all(...parameters) as [number][],
        bound,
      );
    const columns = reading.data ? 'data' : 'none';
    const rows = this.listStatement(window.sort, window.limit, after !== undefined, columns).all(...parameters) as ListRow[];
    return this.toRecords(modelId, rows);
  }

  private toRecords(modelId: string, rows: ListRow[]): StoredRecord[] {
    if (rows.length === 0) return [];
    const workspaceId = this.workspaceOf(modelId);
    const records = new Array<StoredRecord>(rows.length);
    for (let index = 0; index < rows.length; index++) {
      const row = rows[index]!;
      records[index] = recordWithText(
        row[0],
        modelId,
        workspaceId,
        row[1],
        row[2],
        row[3],
        row[4],
        row[5],
        row[6],
        row[7],
        row[8],
        row[9],
      );
    }
    return records;
  }

  async listWithModel(workspaceId: string, key: ModelKey, window: ListWindow, reading: PageReading): Promise<ModelPage | null> {
    return selectModelPage(this.db, this, this.published ?? this, workspaceId, key, window, reading);
  }

  async find(modelId: string, query: RecordQuery, reading: PageReading = FULL_PAGE): Promise<StoredRecord[]> {
    const columns = (reading.data ? LIST_COLUMNS : WITHOUT_DATA).join(', ');
    const bound = reading.data ? reading.maxDataBytes : null;
    const rows = (await findRows(this.filterStatements, modelId, query, columns, bound, this.table)) as ListRow[];
    return this.toRecords(modelId, rows);
  }

  async count(modelId: string, filter: FilterNode): Promise<number> {
    return countMatching(this.filterStatements, this.keptCounts, modelId, filter, this.table);
  }

  /**
   * The page query of a sort and page size, in raw mode (rows as arrays), prepared once. The limit is part of
   * the SQL text: bound as a parameter, it made SQLite (built with STAT4) prepare the statement again on every run.
   */
  private listStatement(
    sort: RecordSort,
    limit: number,
    afterACursor: boolean,
    read: 'data' | 'none' | 'sizes',
  ): Database.Statement {
    const key = `${sort}|${limit}|${afterACursor}|${read}`;
    let statement = this.listStatements.get(key);
    if (!statement) {
      if (!Number.isSafeInteger(limit) || limit < 0) throw new Error(`Bad page size ${limit}`);
      const page = afterACursor ? `LIMIT ${limit}` : `LIMIT ${limit} OFFSET ?`;
      const columns = read === 'sizes' ? 'octet_length(data)' : (read === 'data' ? LIST_COLUMNS : WITHOUT_DATA).join(', ');
      let sql: string;
      if (isUpdatedOrder(sort)) {
        const direction = sort.endsWith('_asc') ? 'ASC' : 'DESC';
        const cursor = afterACursor ? updatedOrderCursor(direction, '?', '?') : null;
        const arms = {
          neverUpdated: cursor ? `${OF_BOUND_MODEL} AND ${cursor.neverUpdated}` : OF_BOUND_MODEL,
          updated: cursor ? `${OF_BOUND_MODEL} AND ${cursor.updated}` : OF_BOUND_MODEL,
        };
        sql = updatedOrderSql(columns, arms, direction, page);
      } else {
        const where = afterACursor ? `${OF_BOUND_MODEL} AND ${afterCursor(sort, '?', '?')}` : OF_BOUND_MODEL;
        sql = `SELECT ${columns} FROM records WHERE ${where} ORDER BY ${ORDER_BY[sort]} ${page}`;
      }
      statement = this.db.prepare(onTable(sql, this.table)).raw(true);
      this.listStatements.set(key, statement);
    }
    return statement;
  }

  /** A model's workspace (it never changes, and model ids are never reused). */
  private workspaceOf(modelId: string): string {
    let workspaceId = this.workspaces.get(modelId);
    if (workspaceId === undefined) {
      // Called with rows of the model in hand: the model exists (records reference it).
      const row = this.db.prepare('SELECT workspace_id FROM models WHERE id = ?').get(modelId) as { workspace_id: string };
      workspaceId = row.workspace_id;
      if (this.workspaces.size >= 10_000) this.workspaces.clear();
      this.workspaces.set(modelId, workspaceId);
    }
    return workspaceId;
  }
}

function isUpdatedOrder(sort: RecordSort): boolean {
  return sort.startsWith('updatedAt');
}

/** Refuses a page whose records' data, by their sizes in page order, add up to more than the bound. */
function refuseOversizedPage(sizes: [number][], bound: number): void {
  let total = 0;
  for (let index = 0; index < sizes.length; index++) {
    total += sizes[index]![0];
    if (total > bound) throw pageTooLargeError(index, bound);
  }
}
