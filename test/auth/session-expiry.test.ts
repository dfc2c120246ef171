// Admin session expiry on a clock the test sets: 12 hours after the last use (written at most once a minute), and
// never later than 7 days after sign-in. The real application in-process (test/support/in-process-app.ts), through
// GET /admin/session and POST /graphql; test/http/admin-session.test.ts checks the rules on the real server.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startInProcessApp, type InProcessApp } from '../support/in-process-app.js';
import { ManualClock } from '../support/manual-clock.js';

const HOUR = 3_600_000;
const IDLE = 12 * HOUR;
const MAX = 7 * 24 * HOUR;
const PASSWORD = 'correct horse battery';

const clock = new ManualClock();
let service: InProcessApp;

before(async () => {
  service = await startInProcessApp(clock.now);
  await service.setOwnerPassword(PASSWORD);
});

after(async () => {
  await service?.close();
});

interface Session {
  cookie: string;
  csrfToken: string;
}

/** Signs in at `time`; the cookie's Max-Age is the 12 hours of idle time. */
async function signInAt(time: number): Promise<Session> {
  clock.set(time);
  const response = await service.app.inject({
    method: 'POST',
    url: '/admin/session',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ email: 'owner@acme.test', password: PASSWORD }),
  });
  assert.equal(response.statusCode, 200, response.body);
  const setCookie = String(response.headers['set-cookie']);
  assert.equal(maxAgeOf(setCookie), IDLE / 1000);
  return { cookie: /^(cs_session=[^;]+)/.exec(setCookie)![1]!, csrfToken: response.json().csrfToken };
}

function maxAgeOf(setCookie: string | undefined): number | undefined {
  const match = /Max-Age=(\d+)/.exec(setCookie ?? '');
  return match ? Number(match[1]) : undefined;
}

interface Use {
  status: number;
  /** The Max-Age of a Set-Cookie sent with the answer (the expiry moved), undefined without one. */
  maxAge: number | undefined;
}

/** GET /admin/session at `time`. */
async function useAt(time: number, session: Session): Promise<Use> {
  clock.set(time);
  const response = await service.app.inject({ method: 'GET', url: '/admin/session', headers: { cookie: session.cookie } });
  return { status: response.statusCode, maxAge: maxAgeOf(response.headers['set-cookie'] as string | undefined) };
}

/** POST /graphql with the session and its CSRF token at `time`. */
async function graphqlAt(time: number, session: Session): Promise<Use> {
  clock.set(time);
  const response = await service.app.inject({
    method: 'POST',
    url: '/graphql',
    headers: {
      cookie: session.cookie,
      'x-csrf-token': session.csrfToken,
      'x-workspace-id': service.workspaceId,
      'content-type': 'application/json',
    },
    payload: JSON.stringify({ query: '{ workspace { current { id } } }' }),
  });
  return { status: response.statusCode, maxAge: maxAgeOf(response.headers['set-cookie'] as string | undefined) };
}

const T0 = Date.UTC(2031, 2, 1, 8, 0, 0);

describe('session expiry (clock-driven)', () => {
  test('unused, a session lives 12 hours: good the millisecond before, refused (401) from then on', async () => {
    for (const use of [useAt, graphqlAt]) {
      const start = T0 + (use === useAt ? 0 : 10 * MAX);
      const live = await signInAt(start);
      assert.equal((await use(start + IDLE - 1, live)).status, 200);
      const unused = await signInAt(start);
      assert.equal((await use(start + IDLE, unused)).status, 401);
      // Removed when found expired: not alive again at an earlier time.
      assert.equal((await use(start + IDLE - 1, unused)).status, 401);
    }
  });

  test('a use is written at most once a minute: the expiry moves (and the cookie is sent again) from the 60th second', async () => {
    const session = await signInAt(T0 + 20 * MAX);
    const start = T0 + 20 * MAX;
    assert.deepEqual(await useAt(start + 59_999, session), { status: 200, maxAge: undefined });
    assert.deepEqual(await graphqlAt(start + 60_000, session), { status: 200, maxAge: IDLE / 1000 });
    // The expiry is now 12 hours after that use, not after the sign-in.
    assert.equal((await useAt(start + 60_000 + IDLE - 1, session)).status, 200);
    assert.equal((await useAt(start + 60_000 + IDLE - 1 + IDLE, session)).status, 401, 'the last use was 12 hours ago');
  });

  test('a use within the minute does not move the expiry', async () => {
    const start = T0 + 30 * MAX;
    const session = await signInAt(start);
    assert.deepEqual(await useAt(start + 59_999, session), { status: 200, maxAge: undefined });
    assert.equal((await useAt(start + IDLE, session)).status, 401, 'still 12 hours after the sign-in');
  });

  test('used every 11 hours, a session ends exactly 7 days after sign-in; the last cookies count down to it', async () => {
    const start = T0 + 40 * MAX;
    const session = await signInAt(start);
    let time = start;
    while (time + 11 * HOUR < start + MAX) {
      time += 11 * HOUR;
      const left = start + MAX - time;
      assert.deepEqual(
        await useAt(time, session),
        { status: 200, maxAge: Math.floor(Math.min(IDLE, left) / 1000) },
        `at ${time - start} ms`,
      );
    }
    assert.ok(start + MAX - time < IDLE, 'the last use was less than 12 hours before the 7 days');
    assert.equal((await graphqlAt(start + MAX - 1, session)).status, 200);
    assert.deepEqual(await graphqlAt(start + MAX, session), { status: 401, maxAge: undefined });
  });
});
