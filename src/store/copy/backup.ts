import Database from 'better-sqlite3';

/**
 * A consistent copy of a live SQLite database, with SQLite's online backup (pages copied in steps; a write by the
 * server meanwhile makes it start over on the changed pages, so the file is one moment's state). Returns the pages.
 */
export async function backupSqlite(path: string, out: string): Promise<number> {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const result = await db.backup(out);
    return result.totalPages;
  } finally {
    db.close();
  }
}
