// The History panel's calls to the API (docs/admin-api.md "Record history"): a page of a record's revisions, the
// patch from one revision to another, and the restore of a revision.
import { gql } from './api.js';
import { HISTORY_PAGE_SIZE, type PatchOperation, type RevisionPage } from './record-history-state.js';
import type { JsonObject } from './types.js';

export async function loadHistoryPage(id: string, offset: number): Promise<RevisionPage> {
  const data = await gql<{ record: { history: RevisionPage } }>(
    `query AdminRecordHistory($id: ID!, $limit: Int, $offset: Int) {
        record { history(id: $id, limit: $limit, offset: $offset) { total hasMore items { revision operation createdAt createdBy } } }
      }`,
    { id, limit: HISTORY_PAGE_SIZE, offset },
  );
  return data.record.history;
}

/** The RFC 6902 patch that turns revision `from`'s data into revision `to`'s. */
export async function loadDiff(id: string, from: number, to: number): Promise<PatchOperation[]> {
  const data = await gql<{ record: { diff: PatchOperation[] } }>(
    'query AdminRecordDiff($id: ID!, $from: Int!, $to: Int) { record { diff(id: $id, from: $from, to: $to) { op path value oldValue } } }',
    { id, from, to },
  );
  return data.record.diff;
}

/** Writes revision `revision`'s data as a new revision; answers the revision made and the data. */
export async function restoreRevisionCall(id: string, revision: number): Promise<{ revision: number; data: JsonObject }> {
  const data = await gql<{ record: { restore: { id: string; revision: number; data: JsonObject } } }>(
    'mutation RestoreRecordRevision($id: ID!, $revision: Int!) { record { restore(id: $id, revision: $revision) { id revision data } } }',
    { id, revision },
  );
  return data.record.restore;
}
