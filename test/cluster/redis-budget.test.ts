// With --redis, every server process that names the same Redis shares one write budget.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { dataOf, gql, type Credentials } from '../support/client.js';
import { startServer, type TestServer } from '../support/server.js';
import { reachable, REDIS_URL } from '../support/redis.js';

const redisUp = await reachable(REDIS_URL);
const unreachable = `Redis at ${REDIS_URL} is unreachable`;
if (!redisUp && process.env.CI === 'true') test('Redis write budget (CI=true requires Redis)', () => assert.fail(unreachable));

describe('write budget in Redis, shared by two server processes', { skip: redisUp ? undefined : unreachable }, () => {
  let first: TestServer;
  let second: TestServer;
  let credentials: Credentials;
  let modelId: string;

  before(async () => {
    first = await startServer({ process: true, writeBudget: 10, extraArgs: ['--redis', REDIS_URL] });
    second = await startServer({ process: true, dir: first.dir, writeBudget: 10, extraArgs: ['--redis', REDIS_URL] });
    const info = await first.bootstrap({ org: 'acme', workspace: 'main' });
    credentials = { token: info.token, workspaceId: info.workspaceId };
    const created = await gql(
      first.adminUrl,
      credentials,
      `mutation { model { create(input: { name: "Note", slug: "note", fields: [{ key: "n", type: "number" }] }) { id } } }`,
    );
    modelId = dataOf(created).model.create.id;
  });

  after(async () => {
    await second?.stop();
    await first?.dispose();
  });

  test('with --write-budget 10 the two processes together accept 10 writes a minute, then answer 429', async () => {
    const create = `mutation($input: CreateModelRecordInput!) { record { create(input: $input) { id } } }`;
    const responses = [];
    for (let index = 0; index < 14; index++) {
      const server = index % 2 === 0 ? first : second;
      responses.push(await gql(server.adminUrl, credentials, create, { input: { modelId, data: { n: index } } }));
    }
    assert.deepEqual(
      responses.map((response) => response.status),
      [...Array(10).fill(200), ...Array(4).fill(429)],
    );
    const retryAfter = Number(responses[13]!.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
  });
});
