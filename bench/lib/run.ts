import { availableParallelism } from 'node:os';
import { Args } from './args.js';
import { cleanupAll } from './cleanup.js';
import { createDatabase, databaseKinds, type BenchDatabase, type DbKind } from './database.js';
import { GqlClient } from './client.js';
import { machineInfo, waitForQuiet, writeResults, type MachineInfo } from './machine.js';
import { bootstrap, startServer, type ServerHandle, type ServerOptions, type Workspace } from './server.js';

export interface BenchContext {
  args: Args;
  kind: DbKind;
  machine: MachineInfo;
  reps: number;
}

/**
 * Runs one benchmark program on each database (SQLite; PostgreSQL when DATABASE_URL is set; `--db` picks one),
 * after waiting for a quiet machine (`--max-load`, default nproc/2, for up to `--wait-load` seconds, default 0), and
 * writes what `measure` returns to bench/results/<name>-<db>.json.
 * Common flags: --reps N (default 3), --db sqlite|postgres; with --large the results go to <name>-large-<db>.json.
 */
export async function runBenchmark(
  name: string,
  measure: (context: BenchContext) => Promise<Record<string, unknown>>,
): Promise<void> {
  const args = new Args();
  try {
    for (const kind of databaseKinds(args.string('db', 'all'))) {
      const load = await waitForQuiet(
        Number(args.string('max-load', String(availableParallelism() / 2))),
        args.int('wait-load', 0),
      );
      const machine = await machineInfo(kind);
      const reps = args.int('reps', 3);
      console.log(`\n=== ${name} on ${kind} (${reps} repetitions; load average ${load.toFixed(2)}) ===`);
      const payload = await measure({ args, kind, machine, reps });
      const variant = args.flag('large') ? `${name}-large` : name;
      const file = writeResults(variant, kind, { machine, reps, argv: process.argv.slice(2), ...payload });
      console.log(`results: ${file}`);
    }
  } catch (error) {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exitCode = 1;
  } finally {
    await cleanupAll();
  }
}

export interface Service {
  database: BenchDatabase;
  server: ServerHandle;
  workspace: Workspace;
  client(connections?: number): GqlClient;
  /** Stops the server, closes the clients made here, drops the database. */
  dispose(): Promise<void>;
}

/** A fresh database with a workspace and token, and a server on it. */
export async function startService(kind: DbKind, options: ServerOptions = {}): Promise<Service> {
  const database = await createDatabase(kind);
  try {
    const workspace = await bootstrap(database.url);
    const server = await startServer(database.url, options);
    const clients: GqlClient[] = [];
    return {
      database,
      server,
      workspace,
      client(connections = 1) {
        const client = new GqlClient(server.baseUrl, workspace, connections);
        clients.push(client);
        return client;
      },
      async dispose() {
        await Promise.all(clients.map((client) => client.close()));
        await server.stop();
        await database.dispose();
      },
    };
  } catch (error) {
    await database.dispose();
    throw error;
  }
}
