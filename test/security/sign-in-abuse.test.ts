// Password spraying and sign-in floods against POST /admin/session: attempts are limited per client address
// (whatever the email) and per email (whatever the address), and at most a few password hashes run at once, so a
// flood of sign-ins is refused quickly instead of starving the API. Different client addresses come from binding
// the test's connections to 127.0.0.x (see test/support/from-address.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { dataOf, gql, type Credentials } from '../support/client.js';
import { postJsonFrom, type AddressedResponse } from '../support/from-address.js';
import { startServer, type TestServer } from '../support/server.js';
import { setPassword } from '../support/session.js';

const PASSWORD = 'correct horse battery';
const READ = '{ model { list { id slug } } }';

function signInFrom(server: TestServer, address: string, email: string, password: string): Promise<AddressedResponse> {
  return postJsonFrom(address, `${server.url}/admin/session`, { email, password });
}

/** Runs `tasks` a few at a time, so that the hashing queue is never what refuses them. */
async function inBatches<T>(tasks: (() => Promise<T>)[], size = 4): Promise<T[]> {
  const results: T[] = [];
  for (let start = 0; start < tasks.length; start += size) {
    results.push(...(await Promise.all(tasks.slice(start, start + size).map((task) => task()))));
  }
  return results;
}

function assertThrottled(response: AddressedResponse): void {
  assert.equal(response.status, 429, response.text);
  const retryAfter = Number(response.headers['retry-after']);
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
  assert.deepEqual(response.body, {
    errors: [
      {
        message: `Too many sign-in attempts; try again in ${retryAfter} seconds`,
        extensions: { code: 'RATE_LIMITED', retryAfter },
      },
    ],
  });
}

function statuses(responses: AddressedResponse[]): number[] {
  return responses.map((response) => response.status);
}

describe('sign-in limits with the defaults: 8 failed attempts a minute per address, 5 per email', () => {
  let server: TestServer;

  before(async () => {
    server = await startServer();
    await server.bootstrap({ org: 'acme', workspace: 'main', email: 'owner@acme.test', role: 'owner' });
    await server.bootstrap({ org: 'acme', workspace: 'main', email: 'editor@acme.test', role: 'editor' });
    await setPassword(server, 'owner@acme.test', PASSWORD);
    await setPassword(server, 'editor@acme.test', PASSWORD);
  });

  after(async () => {
    await server?.dispose();
  });

  test('per address: one password tried against 8 emails, then 429 (the 9th try) for any email from that address; a real user from another address signs in at once', async () => {
    const sprayer = '127.0.0.21';
    const tries = Array.from(
      { length: 8 },
      (_, index) => () => signInFrom(server, sprayer, `spray-${index}@acme.test`, 'Summer2024!'),
    );
    assert.deepEqual(statuses(await inBatches(tries)), Array(8).fill(401));
    assertThrottled(await signInFrom(server, sprayer, 'spray-8@acme.test', 'Summer2024!'));
    assertThrottled(await signInFrom(server, sprayer, 'owner@acme.test', 'another guess'));

    assert.equal((await signInFrom(server, '127.0.0.22', 'spray-9@acme.test', 'Summer2024!')).status, 401);
    assert.equal((await signInFrom(server, '127.0.0.22', 'owner@acme.test', PASSWORD)).status, 200);
  });

  test('per email: 5 attempts at one email from 5 addresses, then 429 (the 6th try) from every address; other emails unaffected', async () => {
    const email = 'editor@acme.test';
    const tries = Array.from(
      { length: 5 },
      (_, index) => () => signInFrom(server, `127.0.0.${31 + index}`, email, `guess ${index}`),
    );
    assert.deepEqual(statuses(await inBatches(tries)), Array(5).fill(401));
    assertThrottled(await signInFrom(server, '127.0.0.41', email, 'guess 5'));
    assertThrottled(await signInFrom(server, '127.0.0.42', 'EDITOR@acme.test ', 'guess 6'));
    // The price of a limit per email: until the minute is over, the right password is refused too.
    assertThrottled(await signInFrom(server, '127.0.0.43', email, PASSWORD));

    assert.equal((await signInFrom(server, '127.0.0.41', 'owner@acme.test', PASSWORD)).status, 200);
  });

  test('successful sign-ins are not counted against the address', async () => {
    const address = '127.0.0.51';
    const successes = Array.from({ length: 31 }, () => () => signInFrom(server, address, 'owner@acme.test', PASSWORD));
    assert.deepEqual(statuses(await inBatches(successes)), Array(31).fill(200));
    assert.equal((await signInFrom(server, address, 'nobody@acme.test', 'x')).status, 401);
  });
});

describe('a flood of sign-ins (limits raised out of the way, 2 password hashes at a time)', () => {
  let server: TestServer;
  let credentials: Credentials;

  before(async () => {
    server = await startServer({
      env: {
        SIGN_IN_ATTEMPTS_PER_MINUTE_PER_ADDRESS: '100000',
        SIGN_IN_ATTEMPTS_PER_MINUTE_PER_EMAIL: '100000',
        PASSWORD_HASH_CONCURRENCY: '2',
        // The production cost: the flood is refused because each hash takes a noticeable time.
        PASSWORD_HASH_COST: '15',
      },
    });
    const workspace = await server.bootstrap({ org: 'acme', workspace: 'main', email: 'owner@acme.test', role: 'owner' });
    credentials = { token: workspace.token, workspaceId: workspace.workspaceId };
    await setPassword(server, 'owner@acme.test', PASSWORD);
  });

  after(async () => {
    await server?.dispose();
  });

  test('200 sign-ins at once: the excess is refused at once with 429, and API reads meanwhile stay quick', async (t) => {
    let flooding = true;
    const flood = Promise.all(
      Array.from({ length: 200 }, (_, index) => signInFrom(server, '127.0.0.61', `flood-${index}@acme.test`, 'Summer2024!')),
    ).finally(() => {
      flooding = false;
    });

    const readTimes: number[] = [];
    do {
      const started = performance.now();
      const read = await gql(server.adminUrl, credentials, READ);
      readTimes.push(performance.now() - started);
      assert.equal(read.status, 200, read.text);
    } while (flooding || readTimes.length < 3);

    const answers = await flood;
    t.diagnostic(`${readTimes.length} API reads during the flood, the slowest ${Math.max(...readTimes).toFixed(0)} ms`);
    const refused = answers.filter((answer) => answer.status === 429);
    assert.deepEqual(
      answers.filter((answer) => answer.status !== 401 && answer.status !== 429).map((answer) => answer.text),
      [],
      'every sign-in is either checked (401) or refused (429)',
    );
    assert.ok(refused.length > 0, 'some of the 200 are refused rather than queued');
    for (const answer of refused) {
      assert.equal(answer.headers['retry-after'], '1');
      assert.deepEqual(answer.body, {
        errors: [
          { message: 'Too many sign-ins at once; try again in a second', extensions: { code: 'RATE_LIMITED', retryAfter: 1 } },
        ],
      });
    }
    // Hashes made on the event loop (each tens to hundreds of ms at this cost) would hold up most reads. The 200
    // requests themselves are read and answered by the event loop too, so a read that arrives with them waits for
    // them: on a loaded machine that one read alone can take a second, and only a stall takes several.
    const sorted = [...readTimes].sort((a, b) => a - b);
    assert.ok(
      sorted[Math.floor(sorted.length / 2)]! < 100 && sorted[sorted.length - 1]! < 3000,
      `API reads during the flood (median under 100 ms, none over 3 s) took ${readTimes.map((ms) => ms.toFixed(0)).join(', ')} ms`,
    );

    const after = await signInFrom(server, '127.0.0.61', 'owner@acme.test', PASSWORD);
    assert.equal(after.status, 200, after.text);
  });

  test("a sign-in link's password sent 40 times at once: the hashes share the same bound, one use sets it, the rest are refused", async () => {
    const added = dataOf(
      await gql(
        server.adminUrl,
        credentials,
        'mutation($email: String!) { member { add(email: $email, role: "viewer") { signInLink } } }',
        { email: 'link-flood@acme.test' },
      ),
    ).member.add;
    const token = new URL(added.signInLink).hash.split('token=')[1];
    assert.ok(token, added.signInLink);
    const answers = await Promise.all(
      Array.from({ length: 40 }, () =>
        postJsonFrom('127.0.0.62', `${server.url}/admin/sign-in-link`, { token, password: 'a good long password' }),
      ),
    );
    const byStatus = new Map<number, number>();
    for (const answer of answers) byStatus.set(answer.status, (byStatus.get(answer.status) ?? 0) + 1);
    assert.equal(byStatus.get(200), 1, `statuses: ${JSON.stringify([...byStatus])}`);
    assert.ok((byStatus.get(429) ?? 0) > 0, `some are refused before hashing: ${JSON.stringify([...byStatus])}`);
    assert.equal((byStatus.get(200) ?? 0) + (byStatus.get(429) ?? 0) + (byStatus.get(401) ?? 0), 40);
    for (const answer of answers.filter((candidate) => candidate.status === 429)) {
      assert.deepEqual(answer.body, {
        errors: [
          { message: 'Too many sign-ins at once; try again in a second', extensions: { code: 'RATE_LIMITED', retryAfter: 1 } },
        ],
      });
    }
    const signedIn = await signInFrom(server, '127.0.0.62', 'link-flood@acme.test', 'a good long password');
    assert.equal(signedIn.status, 200, signedIn.text);
  });
});
