// Filtered and field-sorted pages on PostgreSQL: record data is jsonb, read with ->> (SQL NULL for a missing key
// and for JSON null alike) and cast to the field's type. A value's expression is the same in a query and in its
// field's index (field-indexes.ts): PostgreSQL uses an expression index only for that very expression.
import { onTable, type RecordTable } from '../query/record-table.js';
import type { ComparedTarget, FilterNode, LocalesTarget, ManyTarget, OptionalTarget, Scalar } from '../../domain/filter.js';
import type { RecordQuery } from '../../domain/listing.js';
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
import { createHash } from 'node:crypto';
import type { QueryConfig } from 'pg';
import { TEXT_VALUES, toNumber, type Queryable } from './sql.js';

/**
 * Text is indexed by its first characters: a B-tree entry holds at most about 2700 bytes, and a text field may
 * hold far more. Conditions on text test the prefix (which the index serves) and then the whole value.
 */
export const TEXT_PREFIX_CHARS = 200;

/** A SQL string literal (the keys and locales in paths are checked names; quoting makes any text safe all the same). */
export function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** `data->'meta'->>'colour'`: the value as text, NULL when missing or JSON null. */
function dataText(keys: readonly string[]): string {
  const path = keys.map(literal);
  return `(data${path
    .slice(0, -1)
    .map((key) => `->${key}`)
    .join('')}->>${path[path.length - 1]!})`;
}

function dataJson(keys: readonly string[]): string {
  return `(data${keys.map((key) => `->${literal(key)}`).join('')})`;
}

/** A text value's indexed prefix (ordered byte by byte, as SQLite orders text). */
function textPrefix(target: DataValue): string {
  return `(left(${dataText(target.keys)}, ${TEXT_PREFIX_CHARS}) COLLATE "C")`;
}

function prefixed(target: DataValue): boolean {
  return target.type === 'text' && !target.sku;
}

/** The SQL of a data value in its type: text (byte order), float8 or boolean; the SKU field's own column. */
export function valueSql(target: DataValue): string {
  if (target.sku) return 'sku';
  const text = dataText(target.keys);
  if (target.type === 'number') return `(${text}::float8)`;
  if (target.type === 'boolean') return `(${text}::boolean)`;
  return `(${text} COLLATE "C")`;
}

/** What a value's index holds after model_id: the value itself, or a text value's prefix. */
export function indexedSql(target: DataValue): string {
  return prefixed(target) ? textPrefix(target) : valueSql(target);
}

function comparedSql(target: ComparedTarget): string {
  if (target.kind === 'id') return 'id';
  if (target.kind === 'status') return 'publish_status';
  if (target.kind === 'time') return target.column === 'createdAt' ? 'created_at' : 'updated_at';
  return valueSql(target);
}

const ARRAY_TYPES = { text: 'text[]', number: 'float8[]', boolean: 'boolean[]', date: 'text[]', relation: 'text[]' } as const;

function arrayType(target: ComparedTarget): string {
  if (target.kind === 'id' || target.kind === 'status') return 'text[]';
  if (target.kind === 'time') return 'bigint[]';
  return ARRAY_TYPES[target.type];
}

/** JavaScript's take of `left(text, n)`: the first n code points. */
function prefixOf(text: string): string {
  return text.length <= TEXT_PREFIX_CHARS ? text : Array.from(text).slice(0, TEXT_PREFIX_CHARS).join('');
}

/** Whether a text has as many code points as the indexed prefix, or more (UTF-16 length is an upper bound). */
function beyondPrefix(text: string): boolean {
  return text.length >= TEXT_PREFIX_CHARS && Array.from(text).length >= TEXT_PREFIX_CHARS;
}

/** The comparison a text value's prefix must pass for the whole value to pass `op`. */
const PREFIX_COMPARISON = { eq: '=', gt: '>=', gte: '>=', lt: '<=', lte: '<=' } as const;

class PostgresParameters implements Parameters {
  readonly values: unknown[] = [];

  add(value: Scalar | Scalar[]): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

function textMatch(haystack: string, op: 'contains' | 'startsWith', needle: string): string {
  // lower() without COLLATE "C": the database's own collation folds the case of every letter, not only A-Z.
  return op === 'contains'
    ? `strpos(lower(${haystack}), lower(${needle})) > 0`
    : `starts_with(lower(${haystack}), lower(${needle}))`;
}

export const POSTGRES_FILTERS: FilterDialect = {
  alwaysTrue: 'TRUE',
  alwaysFalse: 'FALSE',
  present: (target: OptionalTarget) => (target.kind === 'value' ? indexedSql(target) : dataText(target.keys)),
  compare(target, op, value, parameters) {
    if (target.kind === 'value' && prefixed(target)) {
      const text = value as string;
      // A value shorter than the prefix compares with the prefix exactly as with the whole text (a prefix is
      // shorter only when the whole text is), so the index alone answers, and the planner sees one condition.
      if (!beyondPrefix(text)) return `${textPrefix(target)} ${COMPARISON_SQL[op]} ${parameters.add(text)}`;
      return `${textPrefix(target)} ${PREFIX_COMPARISON[op]} ${parameters.add(prefixOf(text))} AND ${valueSql(target)} ${COMPARISON_SQL[op]} ${parameters.add(text)}`;
    }
    return `${comparedSql(target)} ${COMPARISON_SQL[op]} ${parameters.add(value)}`;
  },
  in(target, values, parameters) {
    if (target.kind !== 'value' || !prefixed(target)) {
      return `${comparedSql(target)} = ANY(${parameters.add(values)}::${arrayType(target)})`;
    }
    const texts = values as string[];
    if (!texts.some(beyondPrefix)) return `${textPrefix(target)} = ANY(${parameters.add(texts)}::text[])`;
    const prefixes = [...new Set(texts.map(prefixOf))];
    return `${textPrefix(target)} = ANY(${parameters.add(prefixes)}::text[]) AND ${valueSql(target)} = ANY(${parameters.add(texts)}::text[])`;
  },
  text(target: DataValue | LocalesTarget, op, text, parameters) {
    const needle = parameters.add(text);
    if (target.kind === 'value') return textMatch(dataText(target.keys), op, needle);
    const object = dataJson(target.keys);
    return `EXISTS (SELECT 1 FROM jsonb_each_text(CASE WHEN jsonb_typeof(${object}) = 'object' THEN ${object} END) AS t WHERE ${textMatch('t.value', op, needle)})`;
  },
  holds(target: ManyTarget, id, parameters) {
    const targetId = parameters.add(id);
    // The links table finds the records (its key starts with the target id); the array itself is the truth, and
    // tells a top-level field from an object's sub-field stored under the same key.
    return (
      `records.id IN (SELECT source_id FROM record_links WHERE target_id = ${targetId} AND field_key = ${parameters.add(target.linkKey)})` +
      ` AND ${dataJson(target.keys)} @> jsonb_build_array(${targetId}::text)`
    );
  },
  sortKeys: (target) => (prefixed(target) ? [textPrefix(target), valueSql(target)] : [valueSql(target)]),
};

/** The SQL of one filter's pages and counts on one model; `values` are its parameters. */
export class PostgresFilteredQuery {
  private readonly parameters = new PostgresParameters();
  private readonly filter: string | null;

  private readonly model: string;

  constructor(
    modelId: string,
    filter: FilterNode | null,
    private readonly table: RecordTable = 'records',
  ) {
    // A literal, not a parameter: a statement prepared once and planned once for all values (a generic plan) can
    // use the model's partial indexes (WHERE model_id = '<id>') only when its text names the model.
    this.model = `model_id = ${literal(modelId)}`;
    this.filter = filter ? filterSql(filter, POSTGRES_FILTERS, this.parameters) : null;
  }

  get values(): unknown[] {
    return this.parameters.values;
  }

  where(extra: string | null = null): string {
    return [this.model, this.filter, extra]
      .filter((part): part is string => part !== null)
      .map((part) => `(${part})`)
      .join(' AND ');
  }

  /** A segment's rows as `columns` (SQL select items). */
  page(columns: readonly string[], segment: PageSegment): string {
    if (!Number.isSafeInteger(segment.limit) || !Number.isSafeInteger(segment.offset)) throw new Error('Bad page window');
    return onTable(
      `SELECT ${columns.join(', ')} FROM records WHERE ${this.where(segment.where)} ORDER BY ${orderBySql(segment)} LIMIT ${segment.limit} OFFSET ${segment.offset}`,
      this.table,
    );
  }

  /**
   * A segment's rows as `columns` (which include `data`) with `running_bytes`, the running total of their data
   * sizes in page order; `data` is sent only while that total is within the bound (the last parameter).
   */
  boundedPage(columns: readonly string[], segment: PageSegment): string {
    // The sort keys travel with the page (sort_0, …) so that the running total follows the page's own order.
    const keys = segment.keys.map((key, index) => `${key} AS sort_${index}`);
    const order = orderBySql({ keys: segment.keys.map((_, index) => `sort_${index}`), direction: segment.direction });
    const bound = `$${this.values.length + 1}`;
    const selected = columns.map((column) =>
      column === 'data' ? `CASE WHEN running_bytes <= ${bound} THEN data END AS data` : column,
    );
    return (
      `SELECT ${selected.join(', ')}, running_bytes FROM (SELECT page.*, sum(octet_length(data::text)) OVER ` +
      `(ORDER BY ${order} ROWS UNBOUNDED PRECEDING) AS running_bytes FROM (${this.page([...columns, ...keys], segment)}) page) sized ` +
      `ORDER BY ${order}`
    );
  }

  count(extra: string | null = null): string {
    return onTable(`SELECT count(*) AS n FROM records WHERE ${this.where(extra)}`, this.table);
  }
}

/**
 * The query's matching records as rows of `columns` (select items; with a bound they must include `data`). With a
 * bound, PostgreSQL measures each segment's data and sends `data` only while the page stays within it.
 */
export async function findRows<Row>(
  db: Queryable,
  modelId: string,
  query: RecordQuery,
  columns: readonly string[],
  maxDataBytes: number | null,
  table: RecordTable = 'records',
): Promise<Row[]> {
  const sql = new PostgresFilteredQuery(modelId, query.filter, table);
  const bytes = maxDataBytes === null ? null : new PageBytes(maxDataBytes);
  const read = async (segment: PageSegment): Promise<Row[]> => {
    if (!bytes) return (await db.query(statement(sql.page(columns, segment), sql.values, segment.offset === 0))).rows as Row[];
    const { rows } = await db.query<{ running_bytes: string }>({
      text: sql.boundedPage(columns, segment),
      values: [...sql.values, bytes.remaining],
      types: TEXT_VALUES,
    });
    let before = 0;
    bytes.add(
      rows.map((row) => {
        const running = toNumber(row.running_bytes);
        const size = running - before;
        before = running;
        return size;
      }),
    );
    return rows as Row[];
  };
  const countPresent = async (present: string) =>
    toNumber((await db.query<{ n: string }>(statement(sql.count(present), sql.values))).rows[0]!.n);
  return readPage(query, POSTGRES_FILTERS, read, countPresent);
}

/** Named statements made at most, per process: past it (a client inventing filter shapes) statements go unnamed. */
const MAX_NAMED_STATEMENTS = 1000;
const named = new Set<string>();

/**
 * The statement of `text`, named after it when `reusable`: pg prepares a named statement once per connection, and
 * PostgreSQL plans it once for all values after a few runs, where an unnamed one is parsed and planned every time
 * (the plan of a filtered page over the records' expression indexes costs about as much as running it). Only texts
 * without values in them are named (every page with offset 0; the model id is in the text, one per model), so the
 * names stay few.
 */
export function statement(text: string, values: unknown[], reusable = true): QueryConfig {
  if (!reusable) return { text, values, types: TEXT_VALUES };
  const name = `records_${createHash('sha1').update(text).digest('base64url')}`;
  if (!named.has(name)) {
    if (named.size >= MAX_NAMED_STATEMENTS) return { text, values, types: TEXT_VALUES };
    named.add(name);
  }
  return { name, text, values, types: TEXT_VALUES };
}
