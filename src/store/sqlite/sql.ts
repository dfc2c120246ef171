import type Database from 'better-sqlite3';

/** `$."key"`: a JSON path to a top-level key, quoted so any field key is safe. */
export function jsonPath(key: string): string {
  return `$."${key}"`;
}

export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/**
 * `db.prepare` that prepares each SQL text once: preparing a statement cost several times running it (40–100 µs
 * against 5–10 µs for the workspace lookup), and these stores ran a fixed set of texts on every request. Only for
 * SQL made of constants: every text is kept for the life of the connection.
 */
export function preparedOnce(db: Database.Database): (sql: string) => Database.Statement {
  const statements = new Map<string, Database.Statement>();
  return (sql) => {
    let statement = statements.get(sql);
    if (!statement) statements.set(sql, (statement = db.prepare(sql)));
    return statement;
  };
}
