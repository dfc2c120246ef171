// How record writes and changes of their model's definition keep out of each other's way on PostgreSQL
// (docs/decisions.md, "Record writes and what they were checked against").

/** The first key of a model's definition lock (the second is the hash of the model's id). */
const DEFINITION_LOCK = 0x43530005;

/**
 * The arguments of the advisory lock on the definition of the model whose id `modelIdSql` gives: a model update holds
 * it exclusively, a patch, record update or record delete shared, each from before its row locks until it commits.
 * An advisory lock and not a row lock on the model's row: writers of one model that share a row lock would make the
 * row a multixact on every write. A statement that waited for it still reads its older snapshot, so what the
 * definition is after the wait is read by a later statement of the transaction.
 */
export function definitionLockKey(modelIdSql: string): string {
  return `${DEFINITION_LOCK}, hashtext(${modelIdSql})`;
}

/**
 * SQLSTATE of checks_outdated() (made by a migration): a create's statement calls it, undoing all it wrote, when the
 * model's definition is no longer the version its data was checked against.
 */
const CHECKS_OUTDATED = 'CS001';

export function isChecksOutdatedSignal(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === CHECKS_OUTDATED;
}
