// The SQL of filtered and field-sorted record pages that is the same in both dialects: the walk of a filter
// tree, and the reading of a page sorted by a field in two parts (records holding the value, then those missing
// it), each of which an index can serve in either direction. The dialects (sqlite/record-filter.ts,
// postgres/record-filter.ts) say how one condition is written.
import type {
  Comparison,
  FilterNode,
  ComparedTarget,
  LocalesTarget,
  ManyTarget,
  OptionalTarget,
  Scalar,
} from '../../domain/filter.js';
import type { RecordQuery } from '../../domain/listing.js';
import type { DataValue } from '../../domain/record-paths.js';
import { pageTooLargeError } from '../../domain/size-limits.js';

/** The parameters of one statement: `add` returns the placeholder that stands for the value in the SQL text. */
export interface Parameters {
  add(value: Scalar | Scalar[] | string): string;
}

/** How one dialect writes each kind of condition. Every SQL text it returns is a complete boolean expression. */
export interface FilterDialect {
  readonly alwaysTrue: string;
  readonly alwaysFalse: string;
  /** Non-null exactly when the target holds a value (not missing, not JSON null). */
  present(target: OptionalTarget): string;
  compare(target: ComparedTarget, op: Comparison, value: Scalar, parameters: Parameters): string;
  in(target: ComparedTarget, values: Scalar[], parameters: Parameters): string;
  text(target: DataValue | LocalesTarget, op: 'contains' | 'startsWith', text: string, parameters: Parameters): string;
  holds(target: ManyTarget, id: string, parameters: Parameters): string;
  /** The expressions a field sort orders by, most significant first; the first is NULL exactly when the value is missing. */
  sortKeys(target: DataValue): string[];
}

/**
 * The filter as one SQL condition. A comparison on a missing value is NULL in SQL; `NOT` is written so that NULL
 * counts as false first, which keeps the two-valued meaning of the filter (see domain/filter.ts).
 */
export function filterSql(node: FilterNode, dialect: FilterDialect, parameters: Parameters): string {
  switch (node.kind) {
    case 'and':
    case 'or':
      if (node.nodes.length === 0) return node.kind === 'and' ? dialect.alwaysTrue : dialect.alwaysFalse;
      return node.nodes.map((inner) => `(${filterSql(inner, dialect, parameters)})`).join(node.kind === 'and' ? ' AND ' : ' OR ');
    case 'not':
      return `NOT COALESCE((${filterSql(node.node, dialect, parameters)}), ${dialect.alwaysFalse})`;
    case 'compare':
      return dialect.compare(node.target, node.op, node.value, parameters);
    case 'in':
      return node.values.length === 0 ? dialect.alwaysFalse : dialect.in(node.target, node.values, parameters);
    case 'exists':
      return `${dialect.present(node.target)} IS NOT NULL`;
    case 'text':
      return dialect.text(node.target, node.op, node.text, parameters);
    case 'holds':
      return dialect.holds(node.target, node.id, parameters);
  }
}

export const COMPARISON_SQL: Record<Comparison, string> = { eq: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' };

/** One ordered part of a page: the rows matching the query's filter and `where`, ordered by `keys`, windowed. */
export interface PageSegment {
  where: string | null;
  /** SQL expressions, most significant first; the last is always `id`. */
  keys: string[];
  direction: 'ASC' | 'DESC';
  limit: number;
  offset: number;
}

export function orderBySql(segment: Pick<PageSegment, 'keys' | 'direction'>): string {
  return segment.keys.map((key) => `${key} ${segment.direction}`).join(', ');
}

/** The first (for a timestamp order, the only) segment of a page: for a field order, the records holding the value. */
export function firstSegment(query: RecordQuery, dialect: FilterDialect): PageSegment {
  const { order, limit, offset } = query;
  if (order.kind === 'time') {
    const column = order.sort.startsWith('createdAt') ? 'created_at' : 'updated_at';
    const direction = order.sort.endsWith('_desc') ? 'DESC' : 'ASC';
    return { where: null, keys: [column, 'id'], direction, limit, offset };
  }
  const keys = dialect.sortKeys(order.target);
  return { where: `${keys[0]!} IS NOT NULL`, keys: [...keys, 'id'], direction: order.descending ? 'DESC' : 'ASC', limit, offset };
}

/**
 * Reads a page of the query through `read`, one segment at a time. A field sort reads the records holding the
 * value first (an index range in either direction), and only when the page reaches past them the records missing
 * it, in id order; where that part starts needs the number of records holding the value, asked of `countPresent`
 * only when the page begins past all of them.
 */
export async function readPage<Row>(
  query: RecordQuery,
  dialect: FilterDialect,
  read: (segment: PageSegment) => Promise<Row[]>,
  countPresent: (presentSql: string) => Promise<number>,
): Promise<Row[]> {
  const { order, limit, offset } = query;
  const first = firstSegment(query, dialect);
  const holding = await read(first);
  if (order.kind === 'time' || first.where === null || holding.length === limit) return holding;
  const missingOffset = holding.length > 0 ? 0 : Math.max(0, offset - (await countPresent(first.where)));
  const missing = await read({
    where: `${dialect.sortKeys(order.target)[0]!} IS NULL`,
    keys: ['id'],
    direction: first.direction,
    limit: limit - holding.length,
    offset: missingOffset,
  });
  return holding.length === 0 ? missing : [...holding, ...missing];
}

/**
 * Adds up the data sizes of a page read in segments, in page order, and refuses the page (pageTooLargeError) at
 * the first record that takes it over the bound.
 */
export class PageBytes {
  private used = 0;
  private rows = 0;

  constructor(readonly bound: number) {}

  get remaining(): number {
    return this.bound - this.used;
  }

  /** Counts a segment's records by their sizes in order. */
  add(sizes: readonly number[]): void {
    for (const size of sizes) {
      this.used += size;
      if (this.used > this.bound) throw pageTooLargeError(this.rows, this.bound);
      this.rows++;
    }
  }
}
