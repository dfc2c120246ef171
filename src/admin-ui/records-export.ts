// Export of the records table's current view: every record the filter (and the status) matches, in the table's sort,
// all pages of it (not only the page on screen), read 100 at a time through `record.list` (limit/offset, as the CLI's
// `listAll`). CSV as `content-service export --format csv` writes it (src/client/cells.ts: a column per field, a
// translatable field one column per locale, `title.en`; relations as ids joined by `|`), so the file imports back
// with the import page or `content-service import`; JSON as an array of the records' data objects, which
// `content-service import file.json` reads back too.
import { gql } from './api.js';
import { dataToCsvRow, exportColumns } from '../client/cells.js';
import { csvLine } from './csv.js';
import { isPlainObject } from '../shared/json.js';
import type { JsonObject, ModelDefinition, ModelRecord, RecordPage } from './types.js';

export const EXPORT_PAGE_SIZE = 100;

export type ExportFormat = 'csv' | 'json';

export interface ExportView {
  modelId: string;
  sort: string;
  filter: JsonObject | undefined;
  /** A model with drafts: only the records of this status. */
  status?: string | undefined;
}

/** Reads every record of the view, a page at a time; `onPage` hears how far it got. */
export async function readView(
  view: ExportView,
  onPage?: (read: number, total: number) => void,
  pageSize = EXPORT_PAGE_SIZE,
): Promise<ModelRecord[]> {
  const filtered = view.filter !== undefined;
  const byStatus = view.status !== undefined;
  const query = `query AdminExport($id: ID!, $limit: Int, $offset: Int, $sort: String${filtered ? ', $filter: JSON' : ''}${byStatus ? ', $status: [String!]' : ''}) {
    record { list(modelId: $id, limit: $limit, offset: $offset, sort: $sort${filtered ? ', filter: $filter' : ''}${byStatus ? ', status: $status' : ''}) { total hasMore items { id data createdAt updatedAt } } }
  }`;
  const records: ModelRecord[] = [];
  for (;;) {
    const data = await gql<{ record: { list: RecordPage } }>(query, {
      id: view.modelId,
      limit: pageSize,
      offset: records.length,
      sort: view.sort,
      ...(filtered ? { filter: view.filter } : {}),
      ...(byStatus ? { status: [view.status] } : {}),
    });
    const page = data.record.list;
    records.push(...page.items);
    onPage?.(records.length, Math.max(page.total, records.length));
    if (!page.hasMore || page.items.length === 0) return records;
  }
}

/** The CSV the CLI's export writes for these records: header row, then one row per record (CRLF lines). */
export function recordsCsv(model: Pick<ModelDefinition, 'fields'>, records: readonly ModelRecord[]): string {
  const locales = new Map<string, Set<string>>();
  for (const field of model.fields) {
    if (field.type !== 'translatable') continue;
    const set = new Set<string>();
    for (const record of records) {
      const value = record.data[field.key];
      if (isPlainObject(value)) for (const locale of Object.keys(value)) set.add(locale);
    }
    locales.set(field.key, set);
  }
  const columns = exportColumns(model.fields, locales);
  let text = csvLine(columns.map((column) => column.name));
  for (const record of records) text += csvLine(dataToCsvRow(record.data, columns));
  return text;
}

export function recordsJson(records: readonly ModelRecord[]): string {
  return JSON.stringify(
    records.map((record) => record.data),
    null,
    2,
  );
}

/** `product-2026-11-25.csv` */
export function exportFileName(model: Pick<ModelDefinition, 'slug'>, format: ExportFormat, now = new Date()): string {
  return `${model.slug}-${now.toISOString().slice(0, 10)}.${format}`;
}
