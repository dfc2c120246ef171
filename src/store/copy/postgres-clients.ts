// The copy's PostgreSQL connections: each side's own, and the extra ones that hash chunks or build indexes.
import pg from 'pg';

/** A connection that gives up connecting after 10 s; an error while idle (the server gone) fails its next query, not the process. */
export function copyClient(connectionString: string): pg.Client {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 10_000 });
  client.on('error', () => {});
  return client;
}

/** `count` connections, each having run the `setup` statements; when one fails, those already open are closed. */
export async function connectClients(connectionString: string, count: number, setup: readonly string[]): Promise<pg.Client[]> {
  const clients: pg.Client[] = [];
  try {
    for (let index = 0; index < count; index++) {
      const client = copyClient(connectionString);
      clients.push(client);
      await client.connect();
      for (const statement of setup) await client.query(statement);
    }
  } catch (error) {
    await closeClients(clients);
    throw error;
  }
  return clients;
}

export async function closeClients(clients: readonly pg.Client[]): Promise<void> {
  await Promise.all(clients.map((client) => client.end().catch(() => {})));
}
