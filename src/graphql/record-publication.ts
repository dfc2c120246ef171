// ModelRecord's drafts fields (docs/lifecycle.md), made from what the store read with the record. A record of a model
// without drafts (publishStatus null) is live as written: published, at its last write, its current revision.
import type { GraphQLFieldResolver } from 'graphql';
import type { StoredRecord } from '../domain/stored-record.js';
import { sourceOnlyResolver } from './compiled-execute.js';

function statusOf(record: StoredRecord): string {
  return record.publishStatus ?? 'published';
}

export const RECORD_PUBLICATION_RESOLVERS: Record<string, GraphQLFieldResolver<unknown, unknown>> = {
  status: sourceOnlyResolver((record: unknown) => statusOf(record as StoredRecord)),
  hasUnpublishedChanges: sourceOnlyResolver((record: unknown) => statusOf(record as StoredRecord) === 'changed'),
  publishedAt: sourceOnlyResolver((record: unknown) => {
    const stored = record as StoredRecord;
    return stored.publishStatus === null || stored.publishStatus === undefined ? stored.updatedAt : (stored.publishedAt ?? null);
  }),
  publishedRevision: sourceOnlyResolver((record: unknown) => {
    const stored = record as StoredRecord;
    return stored.publishStatus === null || stored.publishStatus === undefined
      ? stored.revision
      : (stored.publishedRevision ?? null);
  }),
};
