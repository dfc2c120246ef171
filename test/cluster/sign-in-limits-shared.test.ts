// The sign-in limits are counted where the write budget is: two server processes on one PostgreSQL (or naming one
// Redis) share them, so a second process does not give an attacker a second allowance.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { postgresTarget, type Target } from '../support/databases.js';
import { postJsonFrom, type AddressedResponse } from '../support/from-address.js';
import { runCli, startServer, type TestServer } from '../support/server.js';
import { reachable, REDIS_URL } from '../support/redis.js';

const postgres = await postgresTarget();
if ('failure' in postgres) {
  test('sign-in limits on PostgreSQL (CI=true requires PostgreSQL)', () => assert.fail(postgres.failure));
}
const postgresSkip = 'failure' in postgres ? postgres.failure : postgres.skip;

const redisUp = await reachable(REDIS_URL);
const redisSkip = redisUp ? undefined : `Redis at ${REDIS_URL} is unreachable`;
if (!redisUp && process.env.CI === 'true') test('sign-in limits in Redis (CI=true requires Redis)', () => assert.fail(redisSkip));

/** Small limits, so the tests stay short; both processes get the same. */
const LIMITS = { SIGN_IN_ATTEMPTS_PER_MINUTE_PER_ADDRESS: '6', SIGN_IN_ATTEMPTS_PER_MINUTE_PER_EMAIL: '4' };

function signInFrom(server: TestServer, address: string, email: string): Promise<AddressedResponse> {
  return postJsonFrom(address, `${server.url}/admin/session`, { email, password: 'Summer2024!' });
}

/** Attempts sent to the two processes in turn: their statuses. */
async function alternate(servers: TestServer[], attempts: { address: string; email: string }[]): Promise<number[]> {
  const statuses: number[] = [];
  for (const [index, attempt] of attempts.entries()) {
    statuses.push((await signInFrom(servers[index % 2]!, attempt.address, attempt.email)).status);
  }
  return statuses;
}

function sharedLimitTests(servers: () => TestServer[]): void {
  // Random emails and addresses: a Redis outlives the test run, and its counters with it (a run a minute ago, or
  // another at the same time, must not have spent this one's attempts).
  const run = randomBytes(4).toString('hex');
  const [octet2, octet3] = randomBytes(2);

  test('one email: 4 attempts across both processes, then 429 at both', async () => {
    const email = `target-${run}@acme.test`;
    const attempts = Array.from({ length: 6 }, (_, index) => ({ address: `127.${octet2}.${octet3}.${10 + index}`, email }));
    assert.deepEqual(await alternate(servers(), attempts), [401, 401, 401, 401, 429, 429]);
  });

  test('one address: 6 attempts across both processes, then 429 at both', async () => {
    const attempts = Array.from({ length: 8 }, (_, index) => ({
      address: `127.${octet2}.${octet3}.20`,
      email: `spray-${run}-${index}@acme.test`,
    }));
    assert.deepEqual(await alternate(servers(), attempts), [401, 401, 401, 401, 401, 401, 429, 429]);
  });
}

describe('sign-in limits shared by two server processes on one PostgreSQL', { skip: postgresSkip }, () => {
  let servers: TestServer[] = [];

  before(async () => {
    const databaseUrl = (postgres as Target).url('signin');
    const result = await runCli(['bootstrap', '--org', 'acme', '--workspace', 'main', '--json', '--database', databaseUrl]);
    assert.equal(result.code, 0, result.stderr);
    servers = await Promise.all([0, 1].map(() => startServer({ process: true, databaseUrl, env: LIMITS })));
  });

  after(async () => {
    await Promise.all(servers.map((server) => server.dispose()));
    await (postgres as Target).cleanup();
  });

  sharedLimitTests(() => servers);
});

describe('sign-in limits shared by two server processes naming one Redis', { skip: redisSkip }, () => {
  let servers: TestServer[] = [];

  before(async () => {
    const first = await startServer({ process: true, env: LIMITS, extraArgs: ['--redis', REDIS_URL] });
    servers = [first, await startServer({ process: true, dir: first.dir, env: LIMITS, extraArgs: ['--redis', REDIS_URL] })];
  });

  after(async () => {
    await servers[1]?.stop();
    await servers[0]?.dispose();
  });

  sharedLimitTests(() => servers);
});
