import type Database from 'better-sqlite3';
import type { VersionedWorkspace } from '../store.js';
import type { TenancyReads } from '../core/tenancy.js';
import { toWorkspace, WORKSPACE_SELECT, type WorkspaceRow } from '../rows/workspace-rows.js';

/** The workspace's counter and the sum of its models' (see VersionedWorkspace). */
const VERSIONED_WORKSPACE_SELECT = `SELECT ws.*,
    (SELECT content_version FROM workspaces WHERE id = ws.id) || '|' ||
      (SELECT coalesce(sum(content_version), 0) FROM models WHERE workspace_id = ws.id) AS content_version
  FROM (${WORKSPACE_SELECT} WHERE o.slug = ? AND w.slug = ?) ws`;

type VersionedWorkspaceRow = WorkspaceRow & { content_version: string };

/** How many workspaces' versions are kept at most (all are forgotten at once when the bound is reached). */
const MAX_KEPT_VERSIONS = 1000;

/**
 * Content versions read once, then kept while the database is unchanged: while no other connection has committed
 * (`PRAGMA data_version`, which moves when one has: another process on the same file, or the checkpointer) and this
 * one has changed no row (`total_changes()`, which counts every row an INSERT, UPDATE or DELETE of this connection
 * touched, committed or not). Every write that moves a content version or a workspace setting changes a row, so a
 * kept version is the one the query would read; the two checks cost one read lock (~4 µs) where the query cost
 * ~11 µs. Transactions here never span an await, so none is open when this runs (checked anyway).
 */
export class SqliteTenancyReads implements TenancyReads {
  private readonly versionedWorkspace: Database.Statement;
  private readonly dataVersion: Database.Statement;
  private readonly totalChanges: Database.Statement;
  /** Versioned workspaces by `org slug / workspace slug` (null: none), read while the two counters stood as they are. */
  private readonly keptVersions = new Map<string, VersionedWorkspace | null>();
  private keptDataVersion = -1;
  private keptTotalChanges = -1;

  constructor(private readonly db: Database.Database) {
    this.versionedWorkspace = db.prepare(VERSIONED_WORKSPACE_SELECT);
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
    this.totalChanges = db.prepare('SELECT total_changes()').pluck();
  }

  async findWorkspaceWithContentVersion(orgSlug: string, workspaceSlug: string): Promise<VersionedWorkspace | null> {
    return this.findWorkspaceWithContentVersionSync(orgSlug, workspaceSlug);
  }

  findWorkspaceWithContentVersionSync(orgSlug: string, workspaceSlug: string): VersionedWorkspace | null {
    if (this.db.inTransaction) return this.readVersionedWorkspace(orgSlug, workspaceSlug);
    const dataVersion = this.dataVersion.get() as number;
    const totalChanges = this.totalChanges.get() as number;
    if (
      dataVersion !== this.keptDataVersion ||
      totalChanges !== this.keptTotalChanges ||
      this.keptVersions.size >= MAX_KEPT_VERSIONS
    ) {
      this.keptVersions.clear();
      this.keptDataVersion = dataVersion;
      this.keptTotalChanges = totalChanges;
    }
    // The org slug's length first: a slug may hold any character, the key is still unambiguous.
    const key = `${orgSlug.length}:${orgSlug}/${workspaceSlug}`;
    let versioned = this.keptVersions.get(key);
    if (versioned === undefined) {
      versioned = this.readVersionedWorkspace(orgSlug, workspaceSlug);
      this.keptVersions.set(key, versioned);
    }
    return versioned;
  }

  private readVersionedWorkspace(orgSlug: string, workspaceSlug: string): VersionedWorkspace | null {
    const row = this.versionedWorkspace.get(orgSlug, workspaceSlug) as VersionedWorkspaceRow | undefined;
    return row ? { workspace: toWorkspace(row), contentVersion: row.content_version } : null;
  }
}
