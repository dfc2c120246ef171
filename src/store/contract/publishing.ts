// Publishing (docs/lifecycle.md): the published copies of drafts models' records, made and removed together.
import type { StoredRecord } from '../../domain/stored-record.js';

/** A publish or unpublish: the records after it, in the order of the ids; or the position of the first unknown id. */
export type PublishOutcome = { records: StoredRecord[] } | { missingAt: number };

export interface PublishingStore {
  /**
   * Publishes the working copies of the records of `ids` (each once) as they are, in one transaction: every one or,
   * when an id is not a record of the workspace, none. A record of a model without drafts is left as it is.
   */
  publish(workspaceId: string, ids: readonly string[]): Promise<PublishOutcome>;
  /** Removes the published copies of the records of `ids`, all or none, as publish does. */
  unpublish(workspaceId: string, ids: readonly string[]): Promise<PublishOutcome>;
  /**
   * What the relation fields of the records of `ids` (of one workspace) point at that the delivery route does not
   * serve: records of drafts models without a published copy; in id order.
   */
  unpublishedTargets(ids: readonly string[]): Promise<string[]>;
}
