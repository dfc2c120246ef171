// Drafts in the admin application, without a DOM (docs/lifecycle.md "Drafts, per model"): a record's status and its
// badge text, the records table's status filter as the URL carries it, which of Publish, Unpublish and Discard
// changes a record offers, which selected rows a bulk Publish or Unpublish sends, and the texts of their results
// (the note about linked records that are not published among them). record-status.ts renders it,
// record-publish-api.ts sends it; records-publish.ts (the table) and record-publish.ts (the form) run it.

/** The statuses a record of a model with drafts has, in the order the status filter offers them. */
export const RECORD_STATUSES = ['draft', 'changed', 'published'] as const;

export type RecordStatus = (typeof RECORD_STATUSES)[number];

const STATUS_TEXT: Record<RecordStatus, string> = { draft: 'Draft', changed: 'Changed', published: 'Published' };

export function isRecordStatus(value: unknown): value is RecordStatus {
  return typeof value === 'string' && (RECORD_STATUSES as readonly string[]).includes(value);
}

/** A status for people (the badge); one this version does not know, as the server names it. */
export function statusText(status: string | undefined): string {
  if (status === undefined) return '';
  return isRecordStatus(status) ? STATUS_TEXT[status] : status;
}

/** The `status` parameter of the records page's URL: a known status, or undefined (all records). */
export function statusFromParam(value: string | null): RecordStatus | undefined {
  return isRecordStatus(value) ? value : undefined;
}

/** The options of the status filter: all records, then one per status. */
export function statusFilterOptions(): { value: string; label: string }[] {
  return [{ value: '', label: 'All statuses' }, ...RECORD_STATUSES.map((value) => ({ value, label: STATUS_TEXT[value] }))];
}

/** What the records page says when no record has the status it filters by. */
export function noRecordsWithStatusText(status: RecordStatus): string {
  return `No records are ${STATUS_TEXT[status].toLowerCase()}.`;
}

/** Which buttons the record form offers for a record in `status` (none to a role that may not write records). */
export interface RecordActions {
  publish: boolean;
  unpublish: boolean;
  discard: boolean;
}

export function recordActions(status: string | undefined, canWrite: boolean): RecordActions {
  if (!canWrite) return { publish: false, unpublish: false, discard: false };
  return {
    publish: status === 'draft' || status === 'changed',
    unpublish: status === 'published' || status === 'changed',
    discard: status === 'changed',
  };
}

/** A record's status line on the form, after the badge: what is live, since when. */
export function publishedDetail(
  record: { status?: string; publishedRevision?: number | null; publishedAt?: string | null },
  formatTime: (iso: string) => string,
): string {
  if (record.status === 'draft' || record.publishedRevision === null || record.publishedRevision === undefined) {
    return 'Not published: the delivery route does not serve it.';
  }
  const when = record.publishedAt ? `, published ${formatTime(record.publishedAt)}` : '';
  const live = `Revision ${record.publishedRevision} is live${when}.`;
  return record.status === 'changed' ? `${live} The changes since are not published.` : live;
}

export type PublishAction = 'publish' | 'unpublish';

/** The selected rows a bulk action sends: Publish those not published as they are, Unpublish those published. */
export function bulkTargets<T extends { id: string; status?: string }>(action: PublishAction, rows: readonly T[]): T[] {
  return rows.filter((row) =>
    action === 'publish'
      ? row.status === 'draft' || row.status === 'changed'
      : row.status === 'published' || row.status === 'changed',
  );
}

/** Whether the bulk buttons can act on the selected rows. */
export function bulkAvailability(rows: readonly { id: string; status?: string }[]): Record<PublishAction, boolean> {
  return { publish: bulkTargets('publish', rows).length > 0, unpublish: bulkTargets('unpublish', rows).length > 0 };
}

function records(count: number): string {
  return `${count.toLocaleString()} ${count === 1 ? 'record' : 'records'}`;
}

/** The message after a bulk action: how many records it changed. */
export function bulkDoneText(action: PublishAction, count: number): string {
  return `${records(count)} ${action === 'publish' ? 'published' : 'unpublished'}.`;
}

/** The note after a publish whose records link to records that are not published (the delivery route shows null). */
export function unpublishedTargetsText(count: number): string {
  return count === 1
    ? '1 record these link to is not published: the delivery route shows that link as empty.'
    : `${records(count)} these link to are not published: the delivery route shows those links as empty.`;
}

/** The note's button. */
export function publishTargetsLabel(count: number): string {
  return count === 1 ? 'Publish the linked record too' : `Publish the ${records(count)} too`;
}

/** At most this many ids go in one publish or unpublish (the API's limit). */
export const MAX_PUBLISH_IDS = 1000;

/** The ids in chunks the API takes (a page of the table never has more than one chunk; targets may). */
export function idChunks(ids: readonly string[], size = MAX_PUBLISH_IDS): string[][] {
  const chunks: string[][] = [];
  for (let start = 0; start < ids.length; start += size) chunks.push(ids.slice(start, start + size));
  return chunks;
}
