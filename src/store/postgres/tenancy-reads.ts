import type { Pool } from 'pg';
import type { TokenRecord, VersionedWorkspace } from '../store.js';
import type { TenancyReads } from '../core/tenancy.js';
import type { KeptReads } from '../kept/kept-reads.js';
import { toWorkspace, type WorkspaceRow } from '../rows/workspace-rows.js';

/**
 * The workspace (the columns of WORKSPACE_SELECT) with its counter, the sum of its models' and the sum of its
 * content counters (see VersionedWorkspace); the workspace's counter is read from the row the join found (a
 * subquery that read it again by id cost ~40 µs of the ~250 µs this round trip took, measured on a loaded machine).
 */
const VERSIONED_WORKSPACE_SELECT = `SELECT w.id, w.slug, w.org_id, o.slug AS org_slug, w.write_budget, w.default_locale,
    w.content_version || '|' ||
      (SELECT coalesce(sum(content_version), 0) FROM models WHERE workspace_id = w.id) || '|' ||
      (SELECT coalesce(sum(changes), 0) FROM content_counters WHERE workspace_id = w.id) AS content_version
  FROM workspaces w JOIN organisations o ON o.id = w.org_id
  WHERE o.slug = $1 AND w.slug = $2`;

type VersionedWorkspaceRow = WorkspaceRow & { content_version: string };

function slugsKey(orgSlug: string, workspaceSlug: string): string {
  return `${orgSlug}\u0000${workspaceSlug}`;
}

/** What a sole server keeps of its reads (kept-reads.ts): content versions by slugs, tokens by hash. */
export interface KeptTenancyReads {
  versions: KeptReads<VersionedWorkspace>;
  tokens: KeptReads<TokenRecord>;
}

/** Content versions and tokens, kept while this server is the only process on the schema (when `kept` is given). */
export class PostgresTenancyReads implements TenancyReads {
  constructor(
    private readonly pool: Pool,
    private readonly kept: KeptTenancyReads | null = null,
  ) {}

  async findWorkspaceWithContentVersion(orgSlug: string, workspaceSlug: string): Promise<VersionedWorkspace | null> {
    const moment = this.kept?.versions.moment() ?? null;
    // Prepared once per connection (a named statement): planning this query costs several times its execution, and
    // it runs before every delivery answer, alone when it finds the client's copy current.
    const { rows } = await this.pool.query<VersionedWorkspaceRow>({
      name: 'versioned-workspace',
      text: VERSIONED_WORKSPACE_SELECT,
      values: [orgSlug, workspaceSlug],
    });
    if (!rows[0]) return null;
    const versioned = { workspace: toWorkspace(rows[0]), contentVersion: rows[0].content_version };
    this.kept?.versions.remember(slugsKey(orgSlug, workspaceSlug), versioned, moment);
    return versioned;
  }

  /** The version kept while this server is the only process on the schema (kept-reads.ts); else undefined. */
  findWorkspaceWithContentVersionSync(orgSlug: string, workspaceSlug: string): VersionedWorkspace | undefined {
    return this.kept?.versions.current(slugsKey(orgSlug, workspaceSlug));
  }

  keptToken(hash: string, read: () => Promise<TokenRecord | null>): Promise<TokenRecord | null> {
    return this.kept ? this.kept.tokens.copied(hash, read) : read();
  }
}
