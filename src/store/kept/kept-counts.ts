// Counts of filtered lists kept while the workspace's content does not change (both stores). Counting the matches
// of an indexed filter reads every matching index entry (SQLite) or every matching record's row (PostgreSQL, which
// cannot count from an expression index alone: an index-only scan needs every column the query names, and the
// expression names `data`): about 10,000 of them for 1 % of a million records, where the page reads 20. A
// storefront asks the same filters again and again.
//
// Never stale: a count is kept with the workspace's content version read *before* it was taken, and given again
// only while the version read now is that same one. Every committed write that can change a record of the
// workspace moves the version (store.ts, VersionedWorkspace), and it never comes back to an earlier value; so when
// the version is unchanged nothing was committed since it was read before the count, and the count is still the
// truth. (A write committed between that read and the count moved it: the kept count is then never given.)

/** Counts kept at most; the oldest go first. */
const MAX_COUNTS = 1000;

export class KeptCounts {
  private readonly counts = new Map<string, { version: string; total: number }>();

  /** The count kept for the query `key` at this content version, if any. */
  get(key: string, version: string): number | undefined {
    const kept = this.counts.get(key);
    return kept && kept.version === version ? kept.total : undefined;
  }

  /** Keeps a count taken after `version` was read. */
  set(key: string, version: string, total: number): void {
    this.counts.delete(key);
    this.counts.set(key, { version, total });
    if (this.counts.size > MAX_COUNTS) this.counts.delete(this.counts.keys().next().value!);
  }
}

/** The key of a count query: its SQL and its parameters. */
export function countKey(sql: string, values: unknown): string {
  return `${sql}\0${JSON.stringify(values)}`;
}
