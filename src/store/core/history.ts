// The history reads (docs/lifecycle.md), written once for both databases: a record's revisions are its row (the
// current one) and the rows of record_revisions (those a change replaced, and a deletion's last entry).
import type { Revision, RevisionOperation } from '../../domain/revisions.js';
import type { RecordData } from '../../domain/fields.js';
import type { StoredRecord } from '../../domain/stored-record.js';
import type { HistoryStore, RecordRevision } from '../contract/history.js';
import { fromJson, type Json } from '../rows/json.js';
import { isoTime, type Millis } from '../rows/time.js';
import { forgetDeleted } from '../query/history-sql.js';
import type { StepRunner } from './runner.js';
import { all, one, run, type Steps } from './steps.js';

interface RevisionRow {
  revision: number | string;
  operation: RevisionOperation;
  data: Json<RecordData>;
  created_at: Millis;
  created_by: string | null;
  email: string | null;
  model_id: string;
}

/** Every revision of the record in the workspace, as rows of one shape; `?`: workspace, id, workspace, id. */
const REVISIONS = `(
  SELECT revision, revision_operation AS operation, data, updated_at AS created_at, updated_by AS created_by, model_id
    FROM records WHERE workspace_id = ? AND id = ?
  UNION ALL
  SELECT revision, operation, data, created_at, created_by, model_id
    FROM record_revisions WHERE workspace_id = ? AND record_id = ?
) h LEFT JOIN users u ON u.id = h.created_by`;
const REVISION_COLUMNS = 'h.revision, h.operation, h.data, h.created_at, h.created_by, u.email, h.model_id';

function toRevision(row: RevisionRow): Revision {
  return {
    revision: Number(row.revision),
    operation: row.operation,
    data: fromJson(row.data),
    createdAt: isoTime(row.created_at),
    createdBy: row.email,
  };
}

export class CoreHistoryStore implements HistoryStore {
  constructor(
    private readonly db: StepRunner,
    readonly keep: number,
  ) {}

  list(workspaceId: string, id: string, limit: number, offset: number): Promise<{ total: number; items: Revision[] } | null> {
    return this.db.read(this.listSteps(workspaceId, id, limit, offset));
  }

  private *listSteps(
    workspaceId: string,
    id: string,
    limit: number,
    offset: number,
  ): Steps<{ total: number; items: Revision[] } | null> {
    const scope = [workspaceId, id, workspaceId, id];
    const counted = yield* one<{ total: number | string }>(`SELECT count(*) AS total FROM ${REVISIONS}`, ...scope);
    const total = Number(counted?.total ?? 0);
    if (total === 0) return null;
    if (this.keep === 0) return { total: 0, items: [] };
    const rows = yield* all<RevisionRow>(
      `SELECT ${REVISION_COLUMNS} FROM ${REVISIONS} ORDER BY h.revision DESC LIMIT ? OFFSET ?`,
      ...scope,
      limit,
      offset,
    );
    return { total, items: rows.map(toRevision) };
  }

  get(workspaceId: string, id: string, revision: number): Promise<RecordRevision | null> {
    return this.db.read(this.revisionSteps(workspaceId, id, 'h.revision = ?', revision));
  }

  latest(workspaceId: string, id: string): Promise<RecordRevision | null> {
    return this.db.read(this.revisionSteps(workspaceId, id, 'h.revision > ?', 0));
  }

  asOf(workspaceId: string, id: string, at: number): Promise<StoredRecord | null> {
    return this.db.read(this.asOfSteps(workspaceId, id, at));
  }

  /** The newest revision that meets the condition (on the columns of `h`). */
  private *revisionRowSteps(workspaceId: string, id: string, condition: string, value: number): Steps<RevisionRow | undefined> {
    if (this.keep === 0) return undefined;
    return yield* one<RevisionRow>(
      `SELECT ${REVISION_COLUMNS} FROM ${REVISIONS} WHERE ${condition} ORDER BY h.revision DESC LIMIT 1`,
      workspaceId,
      id,
      workspaceId,
      id,
      value,
    );
  }

  private *revisionSteps(workspaceId: string, id: string, condition: string, value: number): Steps<RecordRevision | null> {
    const row = yield* this.revisionRowSteps(workspaceId, id, condition, value);
    return row ? { ...toRevision(row), modelId: row.model_id } : null;
  }

  private *asOfSteps(workspaceId: string, id: string, at: number): Steps<StoredRecord | null> {
    const row = yield* this.revisionRowSteps(workspaceId, id, 'h.created_at <= ?', at);
    if (!row || row.operation === 'delete') return null;
    // The record's row knows when and by whom it was created; a deleted record's oldest kept revision tells.
    const first = yield* one<{ created_at: Millis; created_by: string | null }>(
      `SELECT created_at, created_by FROM (
         SELECT 0 AS rank, created_at, created_by FROM records WHERE id = ?
         UNION ALL
         SELECT 1 AS rank, created_at, created_by FROM record_revisions WHERE record_id = ? AND revision = (
           SELECT min(revision) FROM record_revisions WHERE record_id = ?)
       ) f ORDER BY rank LIMIT 1`,
      id,
      id,
      id,
    );
    return {
      id,
      modelId: row.model_id,
      workspaceId,
      data: fromJson(row.data),
      createdAt: isoTime(first?.created_at ?? row.created_at),
      updatedAt: isoTime(row.created_at),
      createdBy: first ? first.created_by : row.created_by,
      updatedBy: row.created_by,
      revision: Number(row.revision),
    };
  }

  forgetDeleted(before: number): Promise<number> {
    return this.db.read(run(forgetDeleted('?'), before));
  }
}
