// The records page's calls to the API: the model with one page of its records (of a status, for a model with drafts),
// and the delete of one record.
import { ApiError, gql } from './api.js';
import { MODEL_SELECTION } from './models-cache.js';
import type { RecordStatus } from './record-status-state.js';
import type { JsonObject, ModelDefinition, RecordPage } from './types.js';

export interface LoadedRecords {
  model: ModelDefinition;
  page: RecordPage;
  /** The server's refusal of the filter or sort of the URL: the table is empty and the message shown. */
  refusal?: string;
}

const RECORD_SELECTION = 'total hasMore items { id data createdAt updatedAt status }';

/** The model and one page of its records; null when the model does not exist. */
export async function loadRecords(
  modelId: string,
  list: { limit: number; offset: number; sort: string; filter: JsonObject | undefined; status?: RecordStatus | undefined },
): Promise<LoadedRecords | null> {
  // Without a filter or a status the request is the one of before (the argument is left out, not sent as null).
  const filtered = list.filter !== undefined;
  const { status, ...rest } = list;
  const byStatus = status !== undefined;
  try {
    const data = await gql<{ model: { get: ModelDefinition | null }; record: { list: RecordPage } }>(
      `query AdminRecords($id: ID!, $limit: Int, $offset: Int, $sort: String${filtered ? ', $filter: JSON' : ''}${byStatus ? ', $status: [String!]' : ''}) {
        model { get(id: $id) { ${MODEL_SELECTION} } }
        record { list(modelId: $id, limit: $limit, offset: $offset, sort: $sort${filtered ? ', filter: $filter' : ''}${byStatus ? ', status: $status' : ''}) { ${RECORD_SELECTION} } }
      }`,
      { id: modelId, ...rest, ...(byStatus ? { status: [status] } : {}) },
    );
    return data.model.get ? { model: data.model.get, page: data.record.list } : null;
  } catch (error) {
    if (error instanceof ApiError && error.code === 'NOT_FOUND') return null;
    if (!(error instanceof ApiError) || error.code !== 'BAD_USER_INPUT' || !/^(filter|sort|status)\b/.test(error.message))
      throw error;
    const data = await gql<{ model: { get: ModelDefinition | null } }>(
      `query AdminModel($id: ID!) { model { get(id: $id) { ${MODEL_SELECTION} } } }`,
      { id: modelId },
    );
    if (!data.model.get) return null;
    return { model: data.model.get, page: { total: 0, hasMore: false, items: [] }, refusal: error.message };
  }
}

const DELETE_RECORD =
  'mutation DeleteRecord($id: ID!, $force: Boolean) { record { delete(id: $id, force: $force) { id deleted } } }';

/** Deletes one record; `force` also removes the links other records hold to it. */
export async function deleteRecordCall(id: string, force: boolean): Promise<void> {
  await gql(DELETE_RECORD, { id, force });
}

/** The server's answer when other records still point at the record: its message, said for the dialog. */
export function stillLinkedText(error: unknown): string | null {
  if (!(error instanceof ApiError) || error.code !== 'CONFLICT') return null;
  return error.message.replace(/^id: /, '').replace(/; delete with force: true to remove the references$/, '.');
}
