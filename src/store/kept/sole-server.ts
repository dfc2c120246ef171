import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

/**
 * Which processes use one schema of a PostgreSQL database, so that a server that is the only one may keep the
 * content versions it reads in memory, exactly (decisions.md, "On PostgreSQL, the sole server keeps the versions it
 * reads"):
 *
 * - Every process that opens the store holds the writers' advisory lock *shared* on a connection of its own for as
 *   long as it runs, and takes it before its first statement.
 * - A server also tries, now and then, to take it *exclusively* on that connection: it succeeds only when no other
 *   process holds it. While it holds it, no other process can have joined, so no statement but its own can change
 *   a content version. It checks every RENEW_MS that the connection (and so the lock) is still there, and trusts
 *   that it is sole until LEASE_MS after the last check it sent.
 * - A process that finds the lock held exclusively notifies the holder (NOTIFY) and tries again. The holder stops
 *   trusting at once and gives the exclusive lock up; the joiner then takes it shared. If the holder's server session
 *   is gone rather than still there, the holder was cut off rather than asked: the joiner then waits LEASE_MS more
 *   before its first statement (the holder's lease runs out first).
 */
const WRITERS_LOCK = 0x43530004;
const LOCK_KEY = `${WRITERS_LOCK}, hashtext($1)`;
const CHANNEL = 'content_service_writers';
const LEASE_MS = 500;
const RENEW_MS = 150;
const JOIN_RETRY_MS = 20;
const JOIN_TIMEOUT_MS = 30_000;
/** How often a server that is not sole tries again (other processes may have left). */
const SOLE_RETRY_MS = 2_000;

export class WritersMembership {
  private sole = false;
  private trustedUntil = 0;
  private epochCount = 0;
  private renewTimer: NodeJS.Timeout | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private closed = false;

  private listening = false;
  /** While this process joins again after its lock connection broke: resolved once it holds its shared lock again. */
  private rejoined: { promise: Promise<void>; resolve: () => void } | null = null;
  /** The last attempt to join again could not connect: the database is away, and statements do not wait for it. */
  private unreachable = false;
  /** The server session that holds this process's shared lock; another one answering means a pooler in between. */
  private backendPid = 0;
  private pooled = false;
  /** Whether joining waited out a holder's lease (its session had ended instead of giving the lock up). */
  waitedForLease = false;
  private onChange: (sole: boolean) => void = () => {};

  private constructor(
    private client: pg.Client,
    private readonly connectionString: string,
    private readonly schema: string,
  ) {}

  /**
   * Joins the processes of the schema (null: the connection's own, which is there before any migration): resolves
   * once this process may write.
   */
  static async join(connectionString: string, schemaName: string | null): Promise<WritersMembership> {
    const client = await connectClient(connectionString);
    try {
      const schema =
        schemaName ??
        (await client.query<{ schema: string | null }>('SELECT current_schema() AS schema')).rows[0]!.schema ??
        'public';
      const membership = new WritersMembership(client, connectionString, schema);
      membership.watch(client);
      await membership.takeShared();
      return membership;
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
  }

  /** True while this process is the only one on the schema (a kept content version is then current). */
  get isSole(): boolean {
    return this.sole && Date.now() < this.trustedUntil;
  }

  /** Moves whenever this process becomes or stops being the sole one: a value kept in another epoch is not used. */
  get epoch(): number {
    return this.epochCount;
  }

  /** For a server: tries to become the sole process now, and again while it is not. */
  keepTryingToBeSole(onChange: (sole: boolean) => void = () => {}): void {
    this.onChange = onChange;
    this.listening = true;
    this.listen();
  }

  private listen(): void {
    const client = this.client;
    client.on('notification', (message) => {
      if (message.channel === CHANNEL && message.payload === this.schema) this.giveWay();
    });
    client.query(`LISTEN ${CHANNEL}`).then(
      () => void this.tryExclusive(),
      () => this.lose(client),
    );
  }

  private watch(client: pg.Client): void {
    client.on('error', () => this.lose(client));
    client.on('end', () => this.lose(client));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopTrusting();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.client.end().catch(() => {});
  }

  private async takeShared(): Promise<void> {
    const started = Date.now();
    /** The sessions seen holding the lock exclusively while this one waited (pid and start, as pids are reused). */
    const holders = new Set<string>();
    let unknownHolder = false;
    for (;;) {
      const { rows } = await this.client.query<{ taken: boolean; pid: number }>(
        `SELECT pg_try_advisory_lock_shared(${LOCK_KEY}) AS taken, pg_backend_pid() AS pid`,
        [this.schema],
      );
      if (rows[0]!.taken) {
        this.backendPid = rows[0]!.pid;
        break;
      }
      const seen = await this.exclusiveHolders();
      // Given up meanwhile, or its session is not shown: nothing says it gave way, so its lease is waited out.
      if (seen.length === 0 || seen.includes(null)) unknownHolder = true;
      for (const holder of seen) if (holder !== null) holders.add(holder);
      if (Date.now() - started > JOIN_TIMEOUT_MS) {
        throw new Error('another server process using this database did not let this one in within 30 s');
      }
      await this.client.query('SELECT pg_notify($1, $2)', [CHANNEL, this.schema]);
      await sleep(JOIN_RETRY_MS);
    }
    // A holder gives the lock up (pg_advisory_unlock) only after it stopped trusting; a holder whose session ended
    // may have been cut off rather than asked, and trusts until LEASE_MS after its last check.
    this.waitedForLease = false;
    if (unknownHolder || (holders.size > 0 && !(await this.allAlive(holders)))) {
      this.waitedForLease = true;
      await sleep(LEASE_MS);
    }
  }

  /** The server sessions holding the lock exclusively (null for one whose start this role may not see). */
  private async exclusiveHolders(): Promise<(string | null)[]> {
    const { rows } = await this.client.query<{ session: string | null }>(
      `SELECT a.pid || ' ' || a.backend_start AS session FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
       WHERE l.locktype = 'advisory' AND l.granted AND l.mode = 'ExclusiveLock' AND l.classid = ${WRITERS_LOCK}
         AND l.objid::bigint = (hashtext($1)::bigint + 4294967296) % 4294967296`,
      [this.schema],
    );
    return rows.map((row) => row.session);
  }

  /** Whether every one of these server sessions is still there. */
  private async allAlive(sessions: Set<string>): Promise<boolean> {
    const { rows } = await this.client.query<{ alive: number }>(
      `SELECT count(*)::int AS alive FROM pg_stat_activity WHERE (pid || ' ' || backend_start) = ANY($1)`,
      [[...sessions]],
    );
    return rows[0]!.alive === sessions.size;
  }

  private async tryExclusive(): Promise<void> {
    this.retryTimer = null;
    if (this.closed || this.pooled) return;
    try {
      const sentAt = Date.now();
      const { rows } = await this.client.query<{ taken: boolean; pid: number }>(
        `SELECT pg_try_advisory_lock(${LOCK_KEY}) AS taken, pg_backend_pid() AS pid`,
        [this.schema],
      );
      if (rows[0]!.pid !== this.backendPid) {
        this.onPooledSession();
        return;
      }
      if (rows[0]!.taken && !this.closed) {
        this.sole = true;
        this.trustedUntil = sentAt + LEASE_MS;
        this.epochCount++;
        this.renew();
        this.onChange(true);
        return;
      }
    } catch {
      this.lose(this.client);
      return;
    }
    this.retryTimer = setTimeout(() => void this.tryExclusive(), SOLE_RETRY_MS);
    this.retryTimer.unref();
  }

  private renew(): void {
    this.renewTimer = setTimeout(() => {
      const sentAt = Date.now();
      this.client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid').then(
        ({ rows }) => {
          if (!this.sole) return;
          if (rows[0]!.pid !== this.backendPid) {
            this.onPooledSession();
            return;
          }
          this.trustedUntil = sentAt + LEASE_MS;
          this.renew();
        },
        () => this.lose(this.client),
      );
    }, RENEW_MS);
    this.renewTimer.unref();
  }

  /** Another process wants in: stop trusting now, then give the exclusive lock up (the shared one stays). */
  private giveWay(): void {
    if (!this.sole) return;
    this.stopTrusting();
    this.client.query(`SELECT pg_advisory_unlock(${LOCK_KEY})`, [this.schema]).then(
      () => {
        if (this.closed) return;
        this.retryTimer = setTimeout(() => void this.tryExclusive(), SOLE_RETRY_MS);
        this.retryTimer.unref();
      },
      () => this.lose(this.client),
    );
  }

  /**
   * The connection's statements run in more than one server session: a pooler in transaction mode is between this
   * process and PostgreSQL, and a session's lock means nothing there. Never sole, then (each revalidation reads).
   */
  private onPooledSession(): void {
    this.stopTrusting();
    this.listening = false;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.pooled = true;
  }

  private stopTrusting(): void {
    if (!this.sole) return;
    this.epochCount++;
    this.sole = false;
    this.trustedUntil = 0;
    if (this.renewTimer) clearTimeout(this.renewTimer);
    this.renewTimer = null;
    this.onChange(false);
  }

  /**
   * The connection (and with it the locks) is gone or going: stop trusting, and join again on a new one. Until it
   * has, the store's statements wait (whenCounted), so that none runs uncounted while a server elsewhere may have
   * become the sole one; one already running when the connection broke is not held back, and a sole server elsewhere
   * keeps a version at most KEPT_MS (kept-reads.ts), which bounds that case.
   */
  private lose(client: pg.Client): void {
    if (client !== this.client) return;
    this.stopTrusting();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    client.end().catch(() => {});
    // One rejoin at a time: a broken connection reports both 'error' and 'end'.
    if (!this.closed && this.rejoined === null) {
      this.rejoined = pending();
      void this.rejoin(REJOIN_RETRY_FIRST_MS);
    }
  }

  private async rejoin(delayMs: number): Promise<void> {
    await sleep(delayMs);
    if (this.closed) {
      this.endRejoin();
      return;
    }
    let client: pg.Client | null = null;
    try {
      try {
        client = await connectClient(this.connectionString);
      } catch (error) {
        this.releaseWhileUnreachable();
        throw error;
      }
      this.unreachable = false;
      if (this.closed) throw new Error('closed');
      this.client = client;
      this.watch(client);
      await this.takeShared();
    } catch {
      await client?.end().catch(() => {});
      if (this.closed) this.endRejoin();
      else void this.rejoin(Math.min(delayMs * 2, REJOIN_RETRY_MAX_MS));
      return;
    }
    this.endRejoin();
    if (this.listening) this.listen();
  }

  private endRejoin(): void {
    this.unreachable = false;
    this.rejoined?.resolve();
    this.rejoined = null;
  }

  /**
   * The database cannot be reached: the statements waiting go on (and fail as they would have without the lock),
   * and new ones do not wait, until an attempt to join again connects.
   */
  private releaseWhileUnreachable(): void {
    this.unreachable = true;
    if (!this.rejoined) return;
    this.rejoined.resolve();
    this.rejoined = pending();
  }

  /**
   * Null while this process is counted, or while the database cannot be reached (a statement then fails at once,
   * as it would without the lock); while it joins again, a promise of that (at most `maxWaitMs`).
   */
  whenCounted(maxWaitMs = REJOIN_WAIT_MS): Promise<void> | null {
    if (this.rejoined === null || this.unreachable) return null;
    // The bound's timer does not keep the process alive (a command that has finished exits at once).
    return Promise.race([this.rejoined.promise, sleep(maxWaitMs, undefined, { ref: false })]);
  }
}

/** How long a statement waits for its process to be counted again before it runs anyway. */
const REJOIN_WAIT_MS = 2_000;
/** Attempts to join again start REJOIN_RETRY_FIRST_MS after the loss and apart, doubling up to REJOIN_RETRY_MAX_MS. */
const REJOIN_RETRY_FIRST_MS = 200;
const REJOIN_RETRY_MAX_MS = 1_000;

function pending(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

async function connectClient(connectionString: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString });
  client.on('error', () => {});
  await client.connect();
  return client;
}
