// Which records of a model are not published (status draft or changed), for `content-service publish
// --all-changed` and for `schema apply` turning drafts off: `record.list(status: …)`, ids only.
import type { ContentClient } from './client.js';
import type { RecordStatus } from './types.js';

/** Statuses that are "not published": what `publish --all-changed` publishes and what stops drafts being turned off. */
export const NOT_PUBLISHED: readonly RecordStatus[] = ['draft', 'changed'];

const PAGE_SIZE = 100;
const STATUS_PAGE = `query($modelId: ID!, $status: [String!], $limit: Int, $offset: Int) {
  record { list(modelId: $modelId, status: $status, limit: $limit, offset: $offset, sort: "createdAt_asc") {
    total hasMore items { id } } } }`;

interface StatusPage {
  total: number;
  hasMore: boolean;
  items: { id: string }[];
}

function statusPage(
  client: ContentClient,
  variables: { modelId: string; status: readonly RecordStatus[]; limit: number; offset: number },
  signal?: AbortSignal,
): Promise<StatusPage> {
  return client
    .request<{ record: { list: StatusPage } }>(STATUS_PAGE, variables, {
      operation: 'listRecordIds',
      ...(signal ? { signal } : {}),
    })
    .then((data) => data.record.list);
}

/**
 * The ids of the model's records whose status is one of `statuses`, oldest first, each once. Read whole before the
 * caller changes any of them: publishing a record takes it out of the list, which would move the pages still to come.
 */
export async function idsWithStatus(
  client: ContentClient,
  modelId: string,
  statuses: readonly RecordStatus[] = NOT_PUBLISHED,
  signal?: AbortSignal,
): Promise<string[]> {
  const ids = new Set<string>();
  for (let offset = 0; ;) {
    const page = await statusPage(client, { modelId, status: statuses, limit: PAGE_SIZE, offset }, signal);
    for (const item of page.items) ids.add(item.id);
    offset += page.items.length;
    if (!page.hasMore || page.items.length === 0) return [...ids];
  }
}

/** How many of the model's records are not published (draft or changed): one request. */
export async function countNotPublished(client: ContentClient, modelId: string, signal?: AbortSignal): Promise<number> {
  return (await statusPage(client, { modelId, status: NOT_PUBLISHED, limit: 1, offset: 0 }, signal)).total;
}
