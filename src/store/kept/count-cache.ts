// Filtered counts kept while the workspace's content does not change (kept-counts.ts says why it is safe).
import type { Pool } from 'pg';
import { countKey, KeptCounts } from './kept-counts.js';
import { toNumber } from '../postgres/sql.js';
import { statement } from '../postgres/record-filter.js';

/** The content version of the model's workspace (as findWorkspaceWithContentVersion makes it); null: no model. */
const MODEL_WORKSPACE_VERSION = `SELECT
    (SELECT content_version FROM workspaces WHERE id = m.workspace_id) || '|' ||
      (SELECT coalesce(sum(content_version), 0) FROM models WHERE workspace_id = m.workspace_id) || '|' ||
      (SELECT coalesce(sum(changes), 0) FROM content_counters WHERE workspace_id = m.workspace_id) AS version
  FROM models m WHERE m.id = $1`;

export class CountCache {
  private readonly kept = new KeptCounts();

  constructor(private readonly pool: Pool) {}

  /** The count of `sql` with `values` on the model's records, kept or taken now. */
  async count(modelId: string, sql: string, values: unknown[]): Promise<number> {
    // Named: prepared once per connection, it runs before every filtered count.
    const { rows } = await this.pool.query<{ version: string | null }>({
      name: 'model_workspace_version',
      text: MODEL_WORKSPACE_VERSION,
      values: [modelId],
    });
    const version = rows[0]?.version ?? null;
    const key = countKey(sql, values);
    const kept = version === null ? undefined : this.kept.get(key, version);
    if (kept !== undefined) return kept;
    const total = toNumber((await this.pool.query<{ n: string }>(statement(sql, values))).rows[0]!.n);
    if (version !== null) this.kept.set(key, version, total);
    return total;
  }
}
