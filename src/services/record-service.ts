import { ServiceError, SKU_EXISTS } from '../domain/errors.js';
import { definitionVersion, skuFieldOf, type ModelDefinition } from '../domain/fields.js';
import { hasMore, plainWindow, plainWindowOf, readListing, type ListArguments, type ListWindow } from '../domain/listing.js';
import { mergePatch } from '../domain/merge-patch.js';
import { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_RECORD_SIZE_LIMITS, type RecordSizeLimits } from '../domain/size-limits.js';
import type { StoredRecord } from '../domain/stored-record.js';
import type { ModifyOperation } from '../domain/revisions.js';
import { ChecksOutdated } from '../store/conflicts.js';
import type { ModelKey, ModelPage, ReplacementData, Store } from '../store/store.js';
import type { Actor } from './actor.js';
import { checkedAgain } from './checked-again.js';
import { MAX_IMPORT_ROWS, importRowLimitError } from './limits.js';
import { PageCursors } from './page-cursors.js';
import {
  checkReferences,
  prepareData,
  requireDataObject,
  throwFirstIssue,
  toNewRecord,
  type PreparedData,
} from './record-writer.js';

export interface ImportResult {
  importedCount: number;
  errors: { row: number; message: string }[];
}

export interface ListOptions {
  /** Whether the answer needs the records' data. */
  withData: boolean;
  /**
   * Whether the answer needs `total` and `hasMore` (absent: it does). A filtered list without them is not counted;
   * its page then has `total` NaN and `hasMore` false, which no answer shows.
   */
  counted?: boolean;
  /** The delivery route's page: a model with drafts lists its published copies (absent: working copies). */
  served?: boolean;
}

const WITH_DATA: ListOptions = { withData: true };

export interface RecordPage {
  total: number;
  hasMore: boolean;
  items: StoredRecord[];
}

export class RecordService {
  private readonly cursors = new PageCursors();

  constructor(
    private readonly store: Store,
    private readonly limits: RecordSizeLimits = DEFAULT_RECORD_SIZE_LIMITS,
    private readonly maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES,
  ) {}

  // Each write checks its data against the model and relation targets read first, and the store writes it only while
  // they are still as read (else ChecksOutdated): checkedAgain reads, checks and tries again.

  async create(actor: Actor, modelId: string, data: unknown): Promise<StoredRecord> {
    return checkedAgain(async () => {
      const model = await this.requireModel(actor.workspaceId, modelId);
      const prepared = await this.checked(actor, model, data);
      return this.store.records.insert({ model, userId: actor.userId }, toNewRecord(prepared));
    });
  }

  async import(actor: Actor, modelId: string, rows: unknown[]): Promise<ImportResult> {
    if (rows.length > MAX_IMPORT_ROWS) throw importRowLimitError(rows.length);
    return checkedAgain(() => this.importRows(actor, modelId, rows));
  }

  private async importRows(actor: Actor, modelId: string, rows: unknown[]): Promise<ImportResult> {
    const model = await this.requireModel(actor.workspaceId, modelId);
    const prepared = rows.map((row) => prepareData(model, row, this.limits));
    await checkReferences(this.store, actor.workspaceId, prepared);
    const errors: ImportResult['errors'] = [];
    const validRows: number[] = [];
    prepared.forEach((item, index) => {
      const first = item.issues[0];
      if (first) errors.push({ row: index + 1, message: `${first.path}: ${first.reason}` });
      else validRows.push(index);
    });
    const records = validRows.map((index) => toNewRecord(prepared[index]!));
    const { skippedForSku } = await this.store.records.insertMany({ model, userId: actor.userId }, records);
    const skuField = skuFieldOf(model) ?? 'sku';
    for (const skipped of skippedForSku) {
      errors.push({ row: validRows[skipped]! + 1, message: `${skuField}: ${SKU_EXISTS}` });
    }
    errors.sort((a, b) => a.row - b.row);
    return { importedCount: records.length - skippedForSku.length, errors };
  }

  async patch(actor: Actor, id: string, patch: unknown): Promise<StoredRecord> {
    requireDataObject(patch);
    return checkedAgain(async () => {
      const before = await this.requireRecord(actor.workspaceId, id);
      const model = await this.requireModel(actor.workspaceId, before.modelId);
      refuseUnknownKeys(model, patch);
      const merge = (data: unknown, limits: RecordSizeLimits | null) => prepareData(model, mergePatch(data, patch), limits);
      const preview = merge(before.data, null);
      await checkReferences(this.store, actor.workspaceId, [preview]);
      throwFirstIssue(preview);
      return this.modify(
        actor,
        id,
        model,
        (current) => {
          const prepared = merge(current.data, this.limits);
          throwFirstIssue(prepared);
          return prepared.replacement;
        },
        'patch',
      );
    });
  }

  async update(actor: Actor, id: string, data: unknown): Promise<StoredRecord> {
    requireDataObject(data);
    return checkedAgain(async () => {
      const before = await this.requireRecord(actor.workspaceId, id);
      const model = await this.requireModel(actor.workspaceId, before.modelId);
      const prepared = await this.checked(actor, model, data);
      return this.modify(actor, id, model, () => prepared.replacement, 'update');
    });
  }

  async delete(actor: Actor, id: string, force: boolean): Promise<{ id: string; deleted: boolean }> {
    const outcome = await this.store.records.delete(actor.workspaceId, id, force, actor.userId);
    if (outcome === 'not-found') throw recordNotFound();
    if (outcome !== 'deleted') {
      const first = outcome[0]!;
      const more = outcome.length > 1 ? ` and ${outcome.length - 1} more` : '';
      throw new ServiceError(
        'CONFLICT',
        `id: record is referenced by field "${first.fieldKey}" of model "${first.modelSlug}" (record ${first.sourceId})${more}; delete with force: true to remove the references`,
        { field: 'id', references: outcome.slice(0, 20) },
      );
    }
    return { id, deleted: true };
  }

  /**
   * Writes `data` over the record, checked against its model as it is now: a revision's from the history (restore),
   * or the published copy's (discard).
   */
  async replaceWith(actor: Actor, current: StoredRecord, data: unknown, operation: 'restore' | 'discard'): Promise<StoredRecord> {
    return checkedAgain(async () => {
      const model = await this.requireModel(actor.workspaceId, current.modelId);
      const prepared = await this.checked(actor, model, data);
      return this.modify(actor, current.id, model, () => prepared.replacement, operation);
    });
  }

  /** Brings a deleted record back under its id, as `revision`, with `data` checked against its model as it is now. */
  async restoreDeleted(actor: Actor, id: string, modelId: string, data: unknown, revision: number): Promise<StoredRecord> {
    return checkedAgain(async () => {
      const model = await this.requireModel(actor.workspaceId, modelId);
      const prepared = await this.checked(actor, model, data);
      return this.store.records.insert({ model, userId: actor.userId }, { ...toNewRecord(prepared), id, revision });
    });
  }

  /** The data prepared to store, its relation targets checked; the first issue refuses it. */
  private async checked(actor: Actor, model: ModelDefinition, data: unknown): Promise<PreparedData> {
    requireDataObject(data);
    const prepared = prepareData(model, data, this.limits);
    await checkReferences(this.store, actor.workspaceId, [prepared]);
    throwFirstIssue(prepared);
    return prepared;
  }

  async get(workspaceId: string, id: string): Promise<StoredRecord | null> {
    return this.store.records.get(workspaceId, id);
  }

  async list(workspaceId: string, modelId: string, args: ListArguments, options: ListOptions = WITH_DATA): Promise<RecordPage> {
    const together = await this.listTogether(workspaceId, { id: modelId }, args, options);
    if (together) return together.page;
    const model = await this.requireModel(workspaceId, modelId);
    return this.listModel(model, args, options);
  }

  /**
   * The model `key` names in the workspace and its page, read together (one round trip on PostgreSQL instead of
   * two), when the list is plain (no filter, a timestamp order) and no remembered cursor can start it: the first
   * page, or any page not in creation order. Null for any other list, when there is no such model or `visible`
   * refuses it, and when the page is refused: the caller then reads the model, then the page (listModel), which
   * gives the same page, and every refusal in its order (an unknown model before a bad window or a page over the
   * size bound).
   */
  async listTogether(
    workspaceId: string,
    key: ModelKey,
    args: ListArguments,
    options: ListOptions = WITH_DATA,
    visible: (model: ModelDefinition) => boolean = () => true,
  ): Promise<{ model: ModelDefinition; page: RecordPage } | null> {
    const window = plainWindowOf(args);
    if (!window || this.cursors.mayStart(window)) return null;
    let found: ModelPage | null;
    try {
      const reading = { data: options.withData, maxDataBytes: this.maxResponseBytes, served: options.served === true };
      found = await this.store.records.listWithModel(workspaceId, key, window, reading);
    } catch (error) {
      if (error instanceof ServiceError) return null;
      throw error;
    }
    if (!found || !visible(found.model)) return null;
    const published = options.served === true && found.model.drafts;
    // Page cursors know the working copies' pages only.
    if (!published) this.cursors.remember(found.model, window, found.items);
    return { model: found.model, page: pageOf(found.model, window, found.items, published) };
  }

  /**
   * A page of the model's records. Without `withData` the records' data is not read at all. A model that holds
   * large records has its page measured by the database first, and refused when over the response limit.
   */
  async listModel(
    model: ModelDefinition,
    args: ListArguments,
    { withData, counted = true, served = false }: ListOptions = WITH_DATA,
  ): Promise<RecordPage> {
    const query = readListing(model, args);
    const reading = { data: withData, maxDataBytes: model.hasLargeRecords ? this.maxResponseBytes : null };
    const window = plainWindow(query);
    const published = served && model.drafts;
    const records = published ? this.store.published : this.store.records;
    if (window) {
      if (published) return pageOf(model, window, await records.list(model.id, window, undefined, reading), true);
      const items = await records.list(model.id, window, this.cursors.find(model, window), reading);
      this.cursors.remember(model, window, items);
      return pageOf(model, window, items, false);
    }
    // Filtered or sorted by a field: no page cursors (they know only the plain orders); the total is counted
    // unless every record is in the list.
    const { filter } = query;
    if (filter && !counted) return { total: NaN, hasMore: false, items: await records.find(model.id, query, reading) };
    const [items, total] = await Promise.all([
      records.find(model.id, query, reading),
      filter ? records.count(model.id, filter) : servedCount(model, published),
    ]);
    return { total, hasMore: hasMore(query, items.length, total), items };
  }

  /** Writes `change(current)`, checked against `model`: ChecksOutdated when its definition changed since. */
  private async modify(
    actor: Actor,
    id: string,
    model: ModelDefinition,
    change: (current: StoredRecord) => ReplacementData,
    operation: ModifyOperation,
  ): Promise<StoredRecord> {
    const checkedVersion = definitionVersion(model);
    const result = await this.store.records.modify(
      actor.workspaceId,
      id,
      actor.userId,
      (current, version) => {
        if (version !== checkedVersion) throw new ChecksOutdated();
        return change(current);
      },
      operation,
    );
    if (!result) throw recordNotFound();
    return result;
  }

  /** The model, or NOT_FOUND naming `modelId`. */
  async requireModel(workspaceId: string, modelId: string): Promise<ModelDefinition> {
    const model = await this.store.models.get(workspaceId, modelId);
    if (!model) throw modelNotFound();
    return model;
  }

  private async requireRecord(workspaceId: string, id: string): Promise<StoredRecord> {
    const record = await this.store.records.get(workspaceId, id);
    if (!record) throw recordNotFound();
    return record;
  }
}

function pageOf(model: ModelDefinition, window: ListWindow, items: StoredRecord[], published: boolean): RecordPage {
  const total = servedCount(model, published);
  return { total, hasMore: hasMore(window, items.length, total), items };
}

/** How many records a page counts: the model's published copies, or all of its records. */
function servedCount(model: ModelDefinition, published: boolean): number {
  return published ? model.publishedCount : model.recordCount;
}

function modelNotFound(): ServiceError {
  return new ServiceError('NOT_FOUND', 'modelId: model not found', { field: 'modelId' });
}

function recordNotFound(): ServiceError {
  return new ServiceError('NOT_FOUND', 'id: record not found', { field: 'id' });
}

function refuseUnknownKeys(model: ModelDefinition, patch: Record<string, unknown>): void {
  const keys = new Set(model.fields.map((field) => field.key));
  for (const key of Object.keys(patch)) {
    if (!keys.has(key)) {
      throw new ServiceError('BAD_USER_INPUT', `${key}: unknown field`, { field: key });
    }
  }
}
