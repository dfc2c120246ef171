// API token expiry on a clock the test sets: a token works until the millisecond before its expiresAt and is
// refused from that millisecond on, with the same 401 as any bad token. The real application in-process
// (test/support/in-process-app.ts); test/http/tokens-api.test.ts checks one expiry in real time over HTTP.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { NOT_AUTHORIZED_BODY } from '../support/client.js';
import { startInProcessApp, type InProcessApp } from '../support/in-process-app.js';
import { ManualClock } from '../support/manual-clock.js';

const clock = new ManualClock();
let service: InProcessApp;

before(async () => {
  service = await startInProcessApp(clock.now);
});

after(async () => {
  await service?.close();
});

async function graphql(token: string, query: string, variables?: Record<string, unknown>) {
  const response = await service.app.inject({
    method: 'POST',
    url: '/graphql',
    headers: { authorization: `Bearer ${token}`, 'x-workspace-id': service.workspaceId, 'content-type': 'application/json' },
    payload: JSON.stringify({ query, variables }),
  });
  return { status: response.statusCode, body: response.json() };
}

async function statusAt(time: number, token: string): Promise<number> {
  clock.set(time);
  const { status, body } = await graphql(token, '{ workspace { current { id } } }');
  if (status === 401) assert.deepEqual(body, NOT_AUTHORIZED_BODY);
  else assert.deepEqual(body, { data: { workspace: { current: { id: service.workspaceId } } } });
  return status;
}

describe('token expiry (clock-driven)', () => {
  test('a token works until the millisecond before expiresAt, and is 401 Not authorized from expiresAt on', async () => {
    const expiresAt = Date.UTC(2031, 5, 1, 12, 0, 0);
    const token = await service.tokenExpiringAt(expiresAt);
    assert.equal(await statusAt(expiresAt - 86_400_000, token), 200);
    assert.equal(await statusAt(expiresAt - 1, token), 200);
    assert.equal(await statusAt(expiresAt, token), 401);
    assert.equal(await statusAt(expiresAt + 1, token), 401);
    assert.equal(await statusAt(expiresAt + 365 * 86_400_000, token), 401);
    // Decided by the time alone: nothing about the token changed when it was refused.
    assert.equal(await statusAt(expiresAt - 1, token), 200);
  });

  test('a token without expiresAt works at any time', async () => {
    for (const time of [Date.UTC(2000, 0, 1), Date.UTC(2031, 0, 1), Date.UTC(2299, 11, 31)]) {
      assert.equal(await statusAt(time, service.ownerToken), 200);
    }
  });

  test('token.create: expiresAt must be after the current time, and the token it makes expires then', async () => {
    const now = Date.UTC(2032, 0, 1);
    clock.set(now);
    const create = (expiresAt: number) =>
      graphql(
        service.ownerToken,
        'mutation($input: CreateApiTokenInput!) { token { create(input: $input) { token apiToken { expiresAt } } } }',
        { input: { name: 'timed', expiresAt: new Date(expiresAt).toISOString() } },
      );
    for (const refused of [now - 1, now]) {
      const { status, body } = await create(refused);
      assert.equal(status, 200);
      assert.deepEqual(body.errors, [
        {
          message: 'expiresAt: must be in the future',
          path: ['token', 'create'],
          extensions: { code: 'BAD_USER_INPUT', field: 'expiresAt' },
        },
      ]);
    }
    const { body } = await create(now + 60_000);
    assert.equal(body.data.token.create.apiToken.expiresAt, new Date(now + 60_000).toISOString());
    const token = body.data.token.create.token as string;
    assert.equal(await statusAt(now + 59_999, token), 200);
    assert.equal(await statusAt(now + 60_000, token), 401);
  });
});
