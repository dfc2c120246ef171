// The calls of drafts (docs/lifecycle.md): publish and unpublish records (all or nothing, at most 1000 ids a call),
// and discard a record's changes (its working copy becomes its published copy again).
import { gql } from './api.js';
import { idChunks, type PublishAction } from './record-status-state.js';
import type { JsonObject } from './types.js';

export interface PublishResult {
  records: { id: string; status: string }[];
  /** Ids the published copies' relation fields point at that are not published themselves. */
  unpublishedTargets: string[];
}

const MUTATIONS: Record<PublishAction, string> = {
  publish: 'mutation PublishRecords($ids: [ID!]!) { record { publish(ids: $ids) { records { id status } unpublishedTargets } } }',
  unpublish:
    'mutation UnpublishRecords($ids: [ID!]!) { record { unpublish(ids: $ids) { records { id status } unpublishedTargets } } }',
};

/** Publishes or unpublishes the records; more than 1000 ids go in several calls, each all or nothing. */
export async function publishCall(action: PublishAction, ids: readonly string[]): Promise<PublishResult> {
  const result: PublishResult = { records: [], unpublishedTargets: [] };
  for (const chunk of idChunks(ids)) {
    const data = await gql<{ record: Record<PublishAction, PublishResult> }>(MUTATIONS[action], { ids: chunk });
    const answer = data.record[action];
    result.records.push(...answer.records);
    for (const id of answer.unpublishedTargets) if (!result.unpublishedTargets.includes(id)) result.unpublishedTargets.push(id);
  }
  return result;
}

/** The working copy becomes the published copy again; answers the record as it is then. */
export async function discardChangesCall(
  id: string,
): Promise<{ id: string; status: string; revision: number; data: JsonObject }> {
  const data = await gql<{ record: { discardChanges: { id: string; status: string; revision: number; data: JsonObject } } }>(
    'mutation DiscardRecordChanges($id: ID!) { record { discardChanges(id: $id) { id status revision data } } }',
    { id },
  );
  return data.record.discardChanges;
}
