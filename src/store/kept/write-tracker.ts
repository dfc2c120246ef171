import type { Pool, PoolClient, QueryConfig } from 'pg';

/**
 * This process's statements that may write, as they start and end: a value kept from the database (a content
 * version) is only as current as the generation it was read in, and none is current while one is running.
 */
export class WriteTracker {
  private running = 0;
  private count = 0;

  /** Moves at every start and end of a statement (or transaction) that may write. */
  get generation(): number {
    return this.count;
  }

  /** No statement that may write is running. */
  get quiet(): boolean {
    return this.running === 0;
  }

  begin(): void {
    this.running++;
    this.count++;
  }

  end(): void {
    this.running--;
    this.count++;
  }
}

const SELECT = /^\s*SELECT\s/i;

/**
 * A statement on the pool (outside a transaction) that only reads: its text begins with SELECT (named statements
 * too: the text comes with the name). No SELECT of the stores calls a function that writes (they define none); a
 * statement that writes begins with INSERT, UPDATE, DELETE or WITH, and a SELECT … FOR UPDATE runs on a checked-out
 * connection, which is counted.
 */
function onlyReads(config: Partial<QueryConfig> | string): boolean {
  const text = typeof config === 'string' ? config : config.text;
  return typeof text === 'string' && SELECT.test(text);
}

/**
 * Makes the pool report to `tracker` every query and every checked-out connection (a transaction) but the
 * statements that only read (onlyReads): the query from its start until its answer is in, the connection until it
 * is released.
 */
export function trackWrites(
  pool: Pool,
  tracker: WriteTracker,
  /** A promise to wait for before a statement that may write (the process is being counted again); null: none. */
  gate: () => Promise<void> | null = () => null,
): void {
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
  const tracked = (...args: unknown[]): unknown => {
    if (onlyReads(args[0] as Partial<QueryConfig> | string) || args.some((arg) => typeof arg === 'function')) {
      return query(...args);
    }
    const waiting = gate();
    if (waiting !== null) return waiting.then(() => run(args));
    return run(args);
  };
  const run = (args: unknown[]): unknown => {
    tracker.begin();
    let result: unknown;
    try {
      result = query(...args);
    } catch (error) {
      tracker.end();
      throw error;
    }
    // A promise (what the stores use); anything else (a submittable such as a cursor) is not followed.
    if (result instanceof Promise) return result.finally(() => tracker.end());
    tracker.end();
    return result;
  };
  const trackedConnect = (...args: unknown[]): unknown => {
    // With a callback: the pool's own query, tracked as a query above.
    if (args.length > 0) return connect(...args);
    return checkout();
  };
  const checkout = async (): Promise<PoolClient> => {
    const waiting = gate();
    if (waiting !== null) await waiting;
    tracker.begin();
    let client: PoolClient;
    try {
      client = (await connect()) as PoolClient;
    } catch (error) {
      tracker.end();
      throw error;
    }
    // The pool gives every checkout a release of its own, so this wraps only this checkout's.
    const release = client.release.bind(client);
    let released = false;
    client.release = (destroy?: boolean | Error) => {
      if (!released) {
        released = true;
        tracker.end();
      }
      release(destroy);
    };
    return client;
  };
  Object.assign(pool, { query: tracked, connect: trackedConnect });
}
