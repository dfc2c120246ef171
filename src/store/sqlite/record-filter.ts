// Filtered and field-sorted pages on SQLite: record data is JSON text, read with json_extract. The expression of a
// value is the same text in a query and in its field's index (field-indexes.ts), which is how SQLite matches them.
import { onTable, type RecordTable } from '../query/record-table.js';
import type Database from 'better-sqlite3';
import type { ComparedTarget, FilterNode, LocalesTarget, ManyTarget, OptionalTarget, Scalar } from '../../domain/filter.js';
import type { RecordQuery } from '../../domain/listing.js';
import { countKey, type KeptCounts } from '../kept/kept-counts.js';
import type { DataValue } from '../../domain/record-paths.js';
import {
  COMPARISON_SQL,
  filterSql,
  orderBySql,
  PageBytes,
  readPage,
  type FilterDialect,
  type PageSegment,
  type Parameters,
} from '../query/filter-sql.js';
import { NEVER_UPDATED, UPDATED, updatedOrderSql } from './updated-order.js';

/** Lower-cases text as JavaScript does (SQLite's own lower() folds ASCII letters only). */
export const CASEFOLD_FUNCTION = 'cs_casefold';

export function registerQueryFunctions(db: Database.Database): void {
  db.function(CASEFOLD_FUNCTION, { deterministic: true }, (text: unknown) =>
    typeof text === 'string' ? text.toLowerCase() : text,
  );
}

/** A SQL string literal (the keys and locales in paths are checked names; quoting makes any text safe all the same). */
export function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** `'$."meta"."colour"'`: the JSON path of keys, as a SQL literal. */
function jsonPath(keys: readonly string[]): string {
  return literal(`$${keys.map((key) => `."${key.replace(/"/g, '""')}"`).join('')}`);
}

/** The SQL of a data value: the SKU field's column, else json_extract (NULL when missing or JSON null). */
export function valueSql(target: DataValue): string {
  return target.sku ? 'sku' : `json_extract(data, ${jsonPath(target.keys)})`;
}

/** `updatedAt` is the column `updated`: `created_at` in the arm of an updatedAt page that holds them equal. */
function comparedSql(target: ComparedTarget, updated: string): string {
  if (target.kind === 'id') return 'id';
  if (target.kind === 'status') return 'publish_status';
  if (target.kind === 'time') return target.column === 'createdAt' ? 'created_at' : updated;
  return valueSql(target);
}

class SqliteParameters implements Parameters {
  readonly values: Record<string, unknown> = {};
  private count = 0;

  add(value: Scalar | Scalar[]): string {
    const name = `p${this.count++}`;
    // better-sqlite3 binds no booleans; json_extract reads JSON true and false as 1 and 0.
    this.values[name] = Array.isArray(value) ? JSON.stringify(value) : typeof value === 'boolean' ? Number(value) : value;
    return `@${name}`;
  }
}

const fold = (sql: string) => `${CASEFOLD_FUNCTION}(${sql})`;

function textMatch(haystack: string, op: 'contains' | 'startsWith', needle: string): string {
  return `instr(${fold(haystack)}, ${fold(needle)}) ${op === 'contains' ? '> 0' : '= 1'}`;
}

/**
 * Gives the names SqliteParameters gave in the same walk of the same filter, adding no value: a second text of a
 * filter, bound with the first one's values.
 */
class SameParameters implements Parameters {
  private count = 0;

  add(): string {
    return `@p${this.count++}`;
  }
}

export const SQLITE_FILTERS: FilterDialect = filterDialect('updated_at');

/**
 * The filters of the never-modified arm of an updatedAt page (updated-order.ts): there updated_at = created_at,
 * and a range on the time is a range of records_model_created, the arm's index.
 */
const NEVER_UPDATED_FILTERS: FilterDialect = filterDialect('created_at');

function filterDialect(updated: string): FilterDialect {
  return {
    alwaysTrue: '1',
    alwaysFalse: '0',
    present: (target: OptionalTarget) =>
      target.kind === 'value' ? valueSql(target) : `json_extract(data, ${jsonPath(target.keys)})`,
    compare: (target, op, value, parameters) => `${comparedSql(target, updated)} ${COMPARISON_SQL[op]} ${parameters.add(value)}`,
    in: (target, values, parameters) =>
      `${comparedSql(target, updated)} IN (SELECT value FROM json_each(${parameters.add(values)}))`,
    text(target: DataValue | LocalesTarget, op, text, parameters) {
      const needle = parameters.add(text);
      if (target.kind === 'value') return textMatch(valueSql(target), op, needle);
      return `EXISTS (SELECT 1 FROM json_each(records.data, ${jsonPath(target.keys)}) AS t WHERE t.type = 'text' AND ${textMatch('t.value', op, needle)})`;
    },
    holds(target: ManyTarget, id, parameters) {
      const targetId = parameters.add(id);
      // The links table finds the records (its key starts with the target id); the array itself is the truth, and
      // tells a top-level field from an object's sub-field stored under the same key.
      return (
        `records.id IN (SELECT source_id FROM record_links WHERE target_id = ${targetId} AND field_key = ${parameters.add(target.linkKey)})` +
        ` AND EXISTS (SELECT 1 FROM json_each(records.data, ${jsonPath(target.keys)}) AS t WHERE t.value = ${targetId})`
      );
    },
    sortKeys: (target) => [valueSql(target)],
  };
}

/** Prepared statements of filtered pages, by SQL text: a bounded number, the least recently used dropped first. */
export class FilterStatements {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(
    private readonly prepare: (sql: string) => Database.Statement,
    private readonly capacity = 500,
  ) {}

  get(sql: string, raw: boolean): Database.Statement {
    const key = `${raw ? 'raw' : 'rows'}|${sql}`;
    let statement = this.statements.get(key);
    if (statement) {
      this.statements.delete(key);
    } else {
      statement = this.prepare(sql);
      if (raw) statement.raw(true);
      if (this.statements.size >= this.capacity) this.statements.delete(this.statements.keys().next().value as string);
    }
    this.statements.set(key, statement);
    return statement;
  }
}

/** The SQL of one filter's pages and counts on one model; parameters are bound by name, from `values`. */
export class SqliteFilteredQuery {
  private readonly parameters = new SqliteParameters();
  private readonly filter: string | null;

  constructor(
    private readonly modelId: string,
    private readonly filterNode: FilterNode | null,
    private readonly table: RecordTable = 'records',
  ) {
    this.filter = filterNode ? filterSql(filterNode, SQLITE_FILTERS, this.parameters) : null;
  }

  get values(): Record<string, unknown> {
    return this.parameters.values;
  }

  where(extra: string | null = null, filter = this.filter): string {
    return [modelCondition(this.modelId), filter, extra]
      .filter((part): part is string => part !== null)
      .map((part) => `(${part})`)
      .join(' AND ');
  }

  /**
   * A segment's rows as `columns`; the offset is the parameter `o`. In updatedAt order, the merge of the records
   * never modified and the others (updated-order.ts).
   */
  page(columns: string, segment: PageSegment): string {
    if (!Number.isSafeInteger(segment.limit) || segment.limit < 0) throw new Error(`Bad page size ${segment.limit}`);
    const window = `LIMIT ${segment.limit} OFFSET @o`;
    if (segment.keys[0] === 'updated_at') {
      const neverUpdatedFilter = this.filterNode ? filterSql(this.filterNode, NEVER_UPDATED_FILTERS, new SameParameters()) : null;
      const arms = { neverUpdated: this.where(segment.where, neverUpdatedFilter), updated: this.where(segment.where) };
      return onTable(updatedOrderSql(columns, arms, segment.direction, window), this.table);
    }
    return onTable(
      `SELECT ${columns} FROM records WHERE ${this.where(segment.where)} ORDER BY ${orderBySql(segment)} ${window}`,
      this.table,
    );
  }

  /**
   * The count of the matching records. A filter on `updatedAt` counts the two arms of updated-order.ts apart and
   * adds them: records_model_updated holds only the modified records, so on its own a range of updatedAt is an
   * index range nowhere, and the count would read every record of the model.
   */
  count(extra: string | null = null): string {
    if (!this.filterNode || !mentionsUpdatedAt(this.filterNode))
      return onTable(`SELECT count(*) FROM records WHERE ${this.where(extra)}`, this.table);
    const neverUpdatedFilter = filterSql(this.filterNode, NEVER_UPDATED_FILTERS, new SameParameters());
    return onTable(
      `SELECT (SELECT count(*) FROM records WHERE ${this.where(extra, neverUpdatedFilter)} AND ${NEVER_UPDATED})` +
        ` + (SELECT count(*) FROM records WHERE ${this.where(extra)} AND ${UPDATED})`,
      this.table,
    );
  }
}

function mentionsUpdatedAt(node: FilterNode): boolean {
  switch (node.kind) {
    case 'and':
    case 'or':
      return node.nodes.some(mentionsUpdatedAt);
    case 'not':
      return mentionsUpdatedAt(node.node);
    case 'compare':
    case 'in':
      return node.target.kind === 'time' && node.target.column === 'updatedAt';
    default:
      return false;
  }
}

/** The query's matching records, page rows as arrays of `columns` (raw mode); data sizes bounded when asked. */
export async function findRows(
  statements: FilterStatements,
  modelId: string,
  query: RecordQuery,
  columns: string,
  maxDataBytes: number | null,
  table: RecordTable = 'records',
): Promise<unknown[][]> {
  const sql = new SqliteFilteredQuery(modelId, query.filter, table);
  const bytes = maxDataBytes === null ? null : new PageBytes(maxDataBytes);
  const read = async (segment: PageSegment) => {
    const values = { ...sql.values, o: segment.offset };
    // The sizes first: SQLite tells a value's size from the row header, without reading the value.
    if (bytes)
      bytes.add((statements.get(sql.page('octet_length(data)', segment), true).all(values) as [number][]).map((row) => row[0]));
    return statements.get(sql.page(columns, segment), true).all(values) as unknown[][];
  };
  const countPresent = async (present: string) => (statements.get(sql.count(present), true).get(sql.values) as [number])[0];
  return readPage(query, SQLITE_FILTERS, read, countPresent);
}

/** The content version of the model's workspace (as findWorkspaceWithContentVersion makes it). */
const MODEL_WORKSPACE_VERSION = `SELECT
    (SELECT content_version FROM workspaces WHERE id = m.workspace_id) || '|' ||
      (SELECT coalesce(sum(content_version), 0) FROM models WHERE workspace_id = m.workspace_id)
  FROM models m WHERE m.id = ?`;

/**
 * How many of the model's records match the filter; a count taken earlier at the same content version is given
 * again (../kept/kept-counts.ts). Not inside a transaction: what it reads there may still be rolled back, and the
 * version with it, which another write could then move to the same value again.
 */
export function countMatching(
  statements: FilterStatements,
  kept: KeptCounts,
  modelId: string,
  filter: FilterNode,
  table: RecordTable = 'records',
): number {
  const sql = new SqliteFilteredQuery(modelId, filter, table);
  const count = statements.get(sql.count(), true);
  if (count.database.inTransaction) return (count.get(sql.values) as [number])[0];
  const version = (statements.get(MODEL_WORKSPACE_VERSION, true).get(modelId) as [string] | undefined)?.[0];
  if (version === undefined) return (count.get(sql.values) as [number])[0];
  const key = countKey(sql.count(), sql.values);
  const found = kept.get(key, version);
  if (found !== undefined) return found;
  const total = (count.get(sql.values) as [number])[0];
  kept.set(key, version, total);
  return total;
}

/**
 * `model_id = '<id>'`, the id spelled out: a field's index is partial (WHERE model_id = '<id>', see
 * field-indexes.ts), and SQLite uses a partial index only for a query whose own text implies its condition.
 */
export function modelCondition(modelId: string): string {
  return `model_id = ${literal(modelId)}`;
}
