// The processes of a PostgreSQL schema (sole-server.ts): every process holds the writers' lock shared; a server holds
// it exclusively while it is alone and gives way to a process that joins; a process whose lock connection breaks
// joins again, and the store's statements that may write wait for that (write-tracker.ts), so none runs uncounted.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { parsePostgresUrl } from '../../src/store/postgres/index.js';
import { WritersMembership } from '../../src/store/kept/sole-server.js';
import { trackWrites, WriteTracker } from '../../src/store/kept/write-tracker.js';
import { postgresTarget, type Target } from '../support/databases.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { waitFor } from '../support/wait-for.js';

const postgres = await postgresTarget();
if ('failure' in postgres) {
  test('writers membership (CI=true requires PostgreSQL)', () => assert.fail(postgres.failure));
}
const skip = 'failure' in postgres ? postgres.failure : postgres.skip;
const WRITERS_LOCK = 0x43530004;
/** A statement the write tracker counts as one that may write (it does not begin with SELECT). */
const MAY_WRITE = 'WITH one AS (SELECT 1 AS one) SELECT one FROM one';

describe('PostgreSQL: the writers of a schema', { skip }, () => {
  const { connectionString, schema } = parsePostgresUrl((postgres as Target).url('writers'));
  const admin = () => new pg.Client({ connectionString });

  after(async () => {
    if (!('failure' in postgres)) await postgres.cleanup();
  });

  /** The sessions holding the schema's writers' lock, with their mode. */
  const HOLDERS = `SELECT pid, mode FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = ${WRITERS_LOCK}
      AND objid::bigint = (hashtext($1)::bigint + 4294967296) % 4294967296 ORDER BY pid, mode`;

  async function holders(): Promise<{ pid: number; mode: string }[]> {
    const client = admin();
    await client.connect();
    try {
      return (await client.query<{ pid: number; mode: string }>(HOLDERS, [schema])).rows;
    } finally {
      await client.end();
    }
  }

  test('writers: a server alone holds the lock exclusively; a joiner makes it give way first, then holds it shared', async () => {
    const server = await WritersMembership.join(connectionString, schema);
    const changes: boolean[] = [];
    server.keepTryingToBeSole((sole) => changes.push(sole));
    try {
      await waitFor(() => server.isSole, { timeoutMs: 5000, message: 'the server becomes sole' });
      assert.deepEqual(
        (await holders()).map((holder) => holder.mode),
        ['ExclusiveLock', 'ShareLock'],
      );
      const joiner = await WritersMembership.join(connectionString, schema);
      try {
        assert.equal(server.isSole, false, 'the server stopped before the joiner was let in');
        assert.equal(joiner.waitedForLease, false, 'a holder that gave way is not waited for');
        assert.deepEqual(changes, [true, false]);
        assert.deepEqual(
          (await holders()).map((holder) => holder.mode),
          ['ShareLock', 'ShareLock'],
        );
      } finally {
        await joiner.close();
      }
      await waitFor(() => server.isSole, { timeoutMs: 5000, message: 'the server is sole again once the joiner left' });
    } finally {
      await server.close();
    }
  });

  test('writers: a joiner waits out the lease of a holder whose session ended instead of giving way', async () => {
    // A holder that does not answer (no LISTEN): only the end of its session lets the joiner in.
    const holder = admin();
    holder.on('error', () => {});
    await holder.connect();
    await holder.query(`SELECT pg_advisory_lock(${WRITERS_LOCK}, hashtext($1))`, [schema]);
    const { rows } = await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    let joined = false;
    const joining = WritersMembership.join(connectionString, schema).then((membership) => {
      joined = true;
      return membership;
    });
    await sleep(200);
    assert.equal(joined, false, 'the joiner waits while the lock is held');
    const killer = admin();
    await killer.connect();
    await killer.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
    await killer.end();
    await holder.end().catch(() => {});
    const joiner = await joining;
    try {
      assert.equal(joiner.waitedForLease, true);
    } finally {
      await joiner.close();
    }
  });

  test('writers: a statement that may write waits until its process, whose lock connection broke, holds the lock again', async () => {
    const membership = await WritersMembership.join(connectionString, schema);
    const pool = new pg.Pool({ connectionString, max: 2 });
    trackWrites(pool, new WriteTracker(), () => membership.whenCounted());
    try {
      const [before] = await holders();
      assert.ok(before, 'the process holds the lock');
      const client = admin();
      await client.connect();
      await client.query('SELECT pg_terminate_backend($1)', [before.pid]);
      await client.end();
      await waitFor(() => membership.whenCounted() !== null, { timeoutMs: 5000, message: 'the process saw its lock go' });
      // Runs once the process is counted again: at that moment a new session of it holds the lock.
      // A statement that begins with WITH may write (write-tracker.ts): it waits.
      const { rows } = await pool.query<{ pid: number }>(
        `WITH holders AS (${HOLDERS.replace('SELECT pid, mode', 'SELECT pid').replace('ORDER BY pid, mode', '')}) SELECT pid FROM holders`,
        [schema],
      );
      assert.equal(rows.length, 1, 'the lock was held again when the statement ran');
      assert.notEqual(rows[0]!.pid, before.pid);
      assert.equal(membership.whenCounted(), null);
    } finally {
      await pool.end();
      await membership.close();
    }
  });

  test('writers: while the database cannot be reached, a statement that may write does not wait to be counted', async () => {
    const direct = new URL(connectionString);
    const proxy = new TcpProxy(direct.hostname, Number(direct.port || 5432));
    await proxy.open();
    const viaProxy = new URL(connectionString);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const membership = await WritersMembership.join(viaProxy.toString(), schema);
    const pool = new pg.Pool({ connectionString: viaProxy.toString(), max: 2 });
    pool.on('error', () => {});
    trackWrites(pool, new WriteTracker(), () => membership.whenCounted());
    try {
      await proxy.cut();
      await sleep(300); // the process has seen its lock connection go, and tried to connect again
      const started = performance.now();
      await assert.rejects(pool.query(MAY_WRITE));
      const failedAfterMs = performance.now() - started;
      // The wait for the lock, when the database answers, lasts up to 2 s.
      assert.ok(failedAfterMs < 1000, `the statement failed after ${Math.round(failedAfterMs)} ms`);

      await proxy.open();
      await waitFor(async () => (await holders()).length === 1, { timeoutMs: 5000, message: 'the process joined again' });
      assert.equal(membership.whenCounted(), null);
      assert.deepEqual((await pool.query<{ one: number }>(MAY_WRITE)).rows, [{ one: 1 }]);
    } finally {
      await pool.end();
      await membership.close();
      await proxy.cut();
    }
  });
});
