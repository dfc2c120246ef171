import type Database from 'better-sqlite3';
import {
  definitionVersion,
  type FieldDefinition,
  type ModelDefinition,
  type ProductSettings,
  type RecordData,
} from '../../domain/fields.js';
import type { FilterNode } from '../../domain/filter.js';
import type { ListWindow, RecordQuery, RecordSort } from '../../domain/listing.js';
import { withoutReference } from '../../domain/relations.js';
import type { StoredRecord } from '../../domain/stored-record.js';
import type {
  ModelKey,
  ModelPage,
  ManyReading,
  NewRecord,
  PageCursor,
  RecordLink,
  RecordStore,
  Reference,
  PageReading,
  ReplacementData,
  WriteContext,
} from '../store.js';
import { FULL_PAGE } from '../store.js';
import { isLargeRecord, pageTooLargeError } from '../../domain/size-limits.js';
import { isUniqueViolation } from './sql.js';
import { fromJson } from '../rows/json.js';
import { afterCursor, ORDER_BY } from '../rows/record-order.js';
import { recordWithText, toRecord, type RecordRow } from '../rows/record-rows.js';
import { isoTime } from '../rows/time.js';
import { ChecksOutdated, modelGone, skuConflict } from '../conflicts.js';
import { WriteGroup } from './write-group.js';
import { BatchInsert } from './batch-insert.js';
import { updatedOrderCursor, updatedOrderSql } from './updated-order.js';
import { selectModelPage } from './model-page.js';
import { countMatching, FilterStatements, findRows } from './record-filter.js';
import { deletedRecordPayload, importPayload, recordPayload } from '../../domain/webhook-events.js';
import { SqliteOutbox } from './webhook-outbox.js';
import { KeptCounts } from '../query/kept-counts.js';
import { KeptRecords } from './kept-records.js';
import { IDS_OF_BOUND_MODEL, OF_BOUND_MODEL } from './model-scope.js';
import { foundOrNone, splitByKept } from '../query/kept-by-id.js';

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
];
const LIST_COLUMNS = ['id', 'data', 'created_at', 'updated_at', 'created_by', 'updated_by'] as const;
/** A row of getMany, the columns of MANY_COLUMNS (raw mode, as ListRow; the workspace is the one asked for). */
type ManyRow = [
  id: string,
  modelId: string,
  data: string,
  createdAt: number,
  updatedAt: number,
  createdBy: string | null,
  updatedBy: string | null,
];
/** A record a forced delete changed (its reference to the deleted record removed), for its event. */
interface ChangedSource {
  id: string;
  modelId: string;
  dataText: string;
  createdAt: number;
  updatedAt: number;
}

const MANY_COLUMNS = ['id', 'model_id', 'data', 'created_at', 'updated_at', 'created_by', 'updated_by'] as const;
const WITHOUT_DATA = LIST_COLUMNS.map((column) => (column === 'data' ? "'{}' AS data" : column));

export class SqliteRecordStore implements RecordStore {
  private readonly keptCounts = new KeptCounts();
  private readonly keptRecords = new KeptRecords();
  private readonly selectModelVersion: Database.Statement;
  private readonly insertRow: Database.Statement;
  private readonly insertLink: Database.Statement;
  private readonly addToCount: Database.Statement;
  private readonly moveContentVersion: Database.Statement;
  /** Models whose records the current write group modified: their content version moves once, at its commit. */
  private readonly modifiedModels = new Set<string>();
  private readonly selectById: Database.Statement;
  /** getMany's statements, of any model and of one (which reads no model column: it is the one asked for). */
  private readonly selectMany: { any: Database.Statement; ofModel: Database.Statement };
  private readonly selectManySizes: { any: Database.Statement; ofModel: Database.Statement };
  private readonly markLarge: Database.Statement;
  private readonly selectDefinitionVersion: Database.Statement;
  private readonly recordExists: Database.Statement;
  private readonly selectModelSlug: Database.Statement;
  private readonly batchInsert: BatchInsert;
  private readonly insertBatch: Database.Transaction<
    (context: WriteContext, records: NewRecord[]) => { skippedForSku: number[] }
  >;
  private readonly listStatements = new Map<string, Database.Statement>();
  private readonly workspaces = new Map<string, string>();
  /** Single writes (insert, modify, delete) share commits with the other writes of their event-loop turn. */
  readonly writes: WriteGroup;

  constructor(
    private readonly db: Database.Database,
    /** Called after each commit of record writes. */
    private readonly onCommit: () => void = () => {},
    private readonly filterStatements = new FilterStatements((sql) => db.prepare(sql)),
    /** Record writes add their webhook events here, in their own transaction. */
    private readonly outbox = new SqliteOutbox(db),
  ) {
    this.insertRow = db.prepare(
      `INSERT INTO records (id, model_id, workspace_id, data, sku, created_at, updated_at, created_by, updated_by)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (model_id, sku) DO NOTHING`,
    );
    this.insertLink = db.prepare('INSERT OR IGNORE INTO record_links (target_id, source_id, field_key) VALUES (?, ?, ?)');
    // content_version (the delivery route's ETag) moves in the same statement as the count.
    this.addToCount = db.prepare(
      `UPDATE models SET record_count = record_count + ?, write_version = write_version + 1,
         content_version = content_version + 1 WHERE id = ?`,
    );
    this.moveContentVersion = db.prepare('UPDATE models SET content_version = content_version + 1 WHERE id = ?');
    this.selectById = db.prepare('SELECT * FROM records WHERE workspace_id = ? AND id = ?');
    this.selectModelVersion = db.prepare('SELECT workspace_id, content_version FROM models WHERE id = ?');
    const inIds = 'workspace_id = ? AND id IN (SELECT value FROM json_each(?))';
    const ofModel = `workspace_id = ? AND ${IDS_OF_BOUND_MODEL}`;
    this.selectMany = {
      any: db.prepare(`SELECT ${MANY_COLUMNS.join(', ')} FROM records WHERE ${inIds}`).raw(true),
      // The model's records: a page's columns (LIST_COLUMNS), the model being the one asked for.
      ofModel: db.prepare(`SELECT ${LIST_COLUMNS.join(', ')} FROM records WHERE ${ofModel}`).raw(true),
    };
    this.selectManySizes = {
      any: db.prepare(`SELECT sum(octet_length(data)) AS bytes FROM records WHERE ${inIds}`),
      ofModel: db.prepare(`SELECT sum(octet_length(data)) AS bytes FROM records WHERE ${ofModel}`),
    };
    this.markLarge = db.prepare('UPDATE models SET has_large_records = 1 WHERE id = ? AND has_large_records = 0');
    this.selectDefinitionVersion = db.prepare('SELECT updated_at FROM models WHERE id = ?').pluck(true);
    this.recordExists = db.prepare('SELECT 1 FROM records WHERE id = ?').pluck(true);
    this.selectModelSlug = db.prepare('SELECT slug AS webhook_model_slug FROM models WHERE id = ?');
    this.batchInsert = new BatchInsert(db);
    this.insertBatch = db.transaction((context: WriteContext, records: NewRecord[]) => this.importBatch(context, records));
    this.writes = new WriteGroup(db, {
      beforeCommit: () => this.moveModifiedModels(),
      onCommit: () => {
        onCommit();
        outbox.committed();
      },
    });
  }

  async insert(context: WriteContext, record: NewRecord): Promise<StoredRecord> {
    const now = await this.writes.run(() => {
      // The write waited for its group's turn: the model may have changed since its data was checked.
      this.refuseOutdatedDefinition(context.model);
      const at = Date.now();
      if (!this.insertOne(context, record, at)) throw skuConflict(context.model);
      this.addToCount.run(1, context.model.id);
      const { model } = context;
      this.outbox.add({
        workspaceId: model.workspaceId,
        type: 'record.created',
        modelId: model.id,
        at,
        details: () => {
          const time = isoTime(at);
          return { modelSlug: model.slug, payload: recordPayload(record.id, record.dataText, time, time) };
        },
      });
      return at;
    });
    const { model, userId } = context;
    const at = isoTime(now);
    return {
      id: record.id,
      modelId: model.id,
      workspaceId: model.workspaceId,
      data: record.data,
      createdAt: at,
      updatedAt: at,
      createdBy: userId,
      updatedBy: userId,
    };
  }

  /**
   * One transaction for the batch (BEGIN IMMEDIATE: it holds the database's write lock from its start), its rows
   * in multi-row statements (batch-insert.ts). The foreign keys stay on: toggling PRAGMA foreign_keys expires every
   * prepared statement of the connection, and re-preparing them cost more than the per-row lookup of the model
   * saved.
   */
  async insertMany(context: WriteContext, records: NewRecord[]): Promise<{ skippedForSku: number[] }> {
    const result = this.outbox.transaction(() => this.insertBatch.immediate(context, records));
    this.onCommit();
    return result;
  }

  private importBatch(context: WriteContext, records: NewRecord[]): { skippedForSku: number[] } {
    if (records.length === 0) return { skippedForSku: [] };
    this.refuseOutdatedDefinition(context.model);
    const now = Date.now();
    const { model, userId } = context;
    const constants = { model: model.id, workspace: model.workspaceId, at: now, user: userId };
    const skippedForSku = this.batchInsert.insert(records, constants);
    this.afterInsert(model.id, records, skippedForSku);
    const inserted = records.length - skippedForSku.length;
    if (inserted > 0) {
      this.addToCount.run(inserted, model.id);
      this.outbox.add({
        workspaceId: model.workspaceId,
        type: 'records.imported',
        modelId: model.id,
        at: now,
        details: () => {
          const skipped = new Set(skippedForSku);
          const ids = records.filter((_, index) => !skipped.has(index)).map((record) => record.id);
          return { modelSlug: model.slug, payload: importPayload(ids) };
        },
      });
    }
    return { skippedForSku };
  }

  /** The large-record mark and the relation links of the batch's inserted rows. */
  private afterInsert(modelId: string, records: readonly NewRecord[], skippedForSku: readonly number[]): void {
    const skipped = skippedForSku.length === 0 ? null : new Set(skippedForSku);
    let large = false;
    for (let index = 0; index < records.length; index++) {
      if (skipped?.has(index)) continue;
      const record = records[index]!;
      if (!large && isLargeRecord(record.dataText)) large = true;
      this.writeLinks(record.id, record.links);
    }
    if (large) this.markLarge.run(modelId);
  }

  private insertOne(context: WriteContext, record: NewRecord, now: number): boolean {
    const { model, userId } = context;
    const result = this.insertRow.run(
      record.id,
      model.id,
      model.workspaceId,
      record.dataText,
      record.sku,
      now,
      now,
      userId,
      userId,
    );
    if (result.changes === 0) return false;
    if (isLargeRecord(record.dataText)) this.markLarge.run(model.id);
    this.writeLinks(record.id, record.links);
    return true;
  }

  /**
   * In the write's transaction, as its first statement: throws unless the model is still at the definition version the
   * data was checked against (modelGone when it was deleted). Synchronous, like a model update's checks and change:
   * no change of the definition can come between this and the write's commit.
   */
  private refuseOutdatedDefinition(model: ModelDefinition): void {
    const version = this.selectDefinitionVersion.get(model.id) as number | undefined;
    if (version === undefined) throw modelGone();
    if (version !== definitionVersion(model)) throw new ChecksOutdated();
  }

  /** Each link's target must exist (a delete may have come since it was checked): else nothing is written. */
  private writeLinks(sourceId: string, links: RecordLink[]): void {
    for (const link of links) {
      if (this.recordExists.get(link.targetId) === undefined) throw new ChecksOutdated();
      this.insertLink.run(link.targetId, sourceId, link.fieldKey);
    }
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
      return rows.map((row) => recordWithText(row[0], row[1], workspaceId, row[2], row[3], row[4], row[5], row[6]));
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
    return rows.map((row) => recordWithText(row[0], modelId, workspaceId, row[1], row[2], row[3], row[4], row[5]));
  }

  /** The data bytes of getMany's records; SQLite tells a value's size from the row header, without reading it. */
  private manyBytes(kind: 'any' | 'ofModel', parameters: unknown[]): number {
    return (this.selectManySizes[kind].get(...parameters) as { bytes: number | null }).bytes ?? 0;
  }

  async modify(
    workspaceId: string,
    id: string,
    userId: string | null,
    change: (current: StoredRecord, definitionVersion: number) => ReplacementData,
  ): Promise<StoredRecord | null> {
    return this.writes.run((): StoredRecord | null => {
      const row = this.selectById.get(workspaceId, id) as RecordRow | undefined;
      if (!row) return null;
      const next = change(toRecord(row), this.selectDefinitionVersion.get(row.model_id) as number);
      const now = Math.max(Date.now(), Number(row.updated_at));
      const text = next.dataText;
      try {
        this.db
          .prepare('UPDATE records SET data = ?, sku = ?, updated_at = ?, updated_by = ? WHERE id = ?')
          .run(text, next.sku, now, userId, id);
      } catch (error) {
        if (isUniqueViolation(error)) throw skuConflict(this.productOf(row.model_id));
        throw error;
      }
      if (isLargeRecord(text)) this.markLarge.run(row.model_id);
      this.modifiedModels.add(row.model_id);
      this.db.prepare('DELETE FROM record_links WHERE source_id = ?').run(id);
      this.writeLinks(id, next.links);
      this.outbox.add({
        workspaceId,
        type: 'record.updated',
        modelId: row.model_id,
        at: now,
        details: () => ({
          modelSlug: this.modelSlug(row.model_id),
          payload: recordPayload(id, text, isoTime(row.created_at), isoTime(now)),
        }),
      });
      return toRecord({ ...row, data: text, updated_at: now, updated_by: userId });
    });
  }

  private modelSlug(modelId: string): string {
    return (this.selectModelSlug.get(modelId) as { webhook_model_slug: string }).webhook_model_slug;
  }

  /**
   * Moves the content version of the models the group's modifies wrote to, once per model and group rather than
   * once per write (a write rolled back after it was noted moves it needlessly, which is harmless).
   */
  private moveModifiedModels(): void {
    for (const modelId of this.modifiedModels) this.moveContentVersion.run(modelId);
    this.modifiedModels.clear();
  }

  private productOf(modelId: string): { product: ProductSettings | null } {
    const row = this.db.prepare('SELECT product FROM models WHERE id = ?').get(modelId) as { product: string | null };
    return { product: row.product === null ? null : fromJson<ProductSettings>(row.product) };
  }

  async referencesTo(id: string): Promise<Reference[]> {
    return this.selectReferences(id);
  }

  private selectReferences(id: string): Reference[] {
    const rows = this.db
      .prepare(
        `SELECT l.source_id, m.slug, l.field_key FROM record_links l
         JOIN records r ON r.id = l.source_id JOIN models m ON m.id = r.model_id
         WHERE l.target_id = ? AND l.source_id <> ? ORDER BY l.source_id, l.field_key`,
      )
      .all(id, id) as { source_id: string; slug: string; field_key: string }[];
    return rows.map((row) => ({ sourceId: row.source_id, modelSlug: row.slug, fieldKey: row.field_key }));
  }

  async delete(workspaceId: string, id: string, force: boolean): Promise<'deleted' | 'not-found' | Reference[]> {
    return this.writes.run((): 'deleted' | 'not-found' | Reference[] => {
      const row = this.selectById.get(workspaceId, id) as RecordRow | undefined;
      if (!row) return 'not-found';
      const references = this.selectReferences(id);
      if (references.length > 0 && !force) return references;
      // One time for the delete and the records it changes: their events are due together, in sequence order.
      const now = Date.now();
      const changed = new Map<string, ChangedSource>();
      for (const reference of references) changed.set(reference.sourceId, this.dropReference(reference, id, now));
      this.db.prepare('DELETE FROM record_links WHERE target_id = ? OR source_id = ?').run(id, id);
      this.db.prepare('DELETE FROM records WHERE id = ?').run(id);
      this.addToCount.run(-1, row.model_id);
      this.outbox.add({
        workspaceId,
        type: 'record.deleted',
        modelId: row.model_id,
        at: now,
        details: () => ({ modelSlug: this.modelSlug(row.model_id), payload: deletedRecordPayload(id) }),
      });
      // The records whose references went are updated records: their events, and their models' content versions
      // moved (records kept by version, ETags) as a patch's would be.
      for (const source of changed.values()) {
        this.modifiedModels.add(source.modelId);
        this.outbox.add({
          workspaceId,
          type: 'record.updated',
          modelId: source.modelId,
          at: source.updatedAt,
          details: () => ({
            modelSlug: this.modelSlug(source.modelId),
            payload: recordPayload(source.id, source.dataText, isoTime(source.createdAt), isoTime(source.updatedAt)),
          }),
        });
      }
      return 'deleted';
    });
  }

  /** Removes one reference to `targetId` from the record that holds it; the record as it now is. */
  private dropReference(reference: Reference, targetId: string, now: number): ChangedSource {
    const source = this.db
      .prepare(
        'SELECT r.model_id, r.data, r.created_at, r.updated_at, m.fields FROM records r JOIN models m ON m.id = r.model_id WHERE r.id = ?',
      )
      .get(reference.sourceId) as { model_id: string; data: string; created_at: number; updated_at: number; fields: string };
    const fields = JSON.parse(source.fields) as FieldDefinition[];
    const data = withoutReference(fields, JSON.parse(source.data) as RecordData, reference.fieldKey, targetId);
    const dataText = JSON.stringify(data);
    const updatedAt = Math.max(now, Number(source.updated_at));
    this.db.prepare('UPDATE records SET data = ?, updated_at = ? WHERE id = ?').run(dataText, updatedAt, reference.sourceId);
    return { id: reference.sourceId, modelId: source.model_id, dataText, createdAt: Number(source.created_at), updatedAt };
  }

  async existingIds(modelId: string, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = this.db.prepare(`SELECT id FROM records WHERE ${IDS_OF_BOUND_MODEL}`).all(JSON.stringify(ids), modelId) as {
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
      records[index] = recordWithText(row[0], modelId, workspaceId, row[1], row[2], row[3], row[4], row[5]);
    }
    return records;
  }

  async listWithModel(workspaceId: string, key: ModelKey, window: ListWindow, reading: PageReading): Promise<ModelPage | null> {
    return selectModelPage(this.db, this, workspaceId, key, window, reading);
  }

  async find(modelId: string, query: RecordQuery, reading: PageReading = FULL_PAGE): Promise<StoredRecord[]> {
    const columns = (reading.data ? LIST_COLUMNS : WITHOUT_DATA).join(', ');
    const bound = reading.data ? reading.maxDataBytes : null;
    const rows = (await findRows(this.filterStatements, modelId, query, columns, bound)) as ListRow[];
    return this.toRecords(modelId, rows);
  }

  async count(modelId: string, filter: FilterNode): Promise<number> {
    return countMatching(this.filterStatements, this.keptCounts, modelId, filter);
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
      statement = this.db.prepare(sql).raw(true);
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
