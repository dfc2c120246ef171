// Runs a statement on a test server's database directly, beside the server: for the few tests that must change the
// database under a running server (e.g. to prove that an answer does not read a table).
import Database from 'better-sqlite3';
import pg from 'pg';
import { parsePostgresUrl } from '../../src/store/postgres/index.js';
import { WritersMembership } from '../../src/store/kept/sole-server.js';

/** Executes `sql` on the database of `databaseUrl` (`sqlite:<path>` or `postgres://…?schema=…`). */
export async function execDirect(databaseUrl: string, sql: string): Promise<void> {
  if (!databaseUrl.startsWith('postgres')) {
    const db = new Database(databaseUrl.replace(/^sqlite:/, ''));
    try {
      db.pragma('busy_timeout = 5000');
      db.exec(sql);
    } finally {
      db.close();
    }
    return;
  }
  // The URL's schema becomes the search path (parsePostgresUrl), as for the server. Like any process that writes
  // to the schema, this one first counts itself among its processes (a sole server then stops keeping versions).
  const { connectionString, schema } = parsePostgresUrl(databaseUrl);
  const membership = await WritersMembership.join(connectionString, schema);
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
    await membership.close();
  }
}
