// The edges of the two transports: stdout of `content-service mcp` carries the protocol and nothing else; the
// command needs its credentials; POST /mcp is authenticated like /graphql and takes only POST.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { Admin, bootstrapAdmin } from '../support/client.js';
import { CLI, REPO_ROOT, runCli, startServer, type TestServer } from '../support/server.js';
import { withDeadline } from '../support/wait-for.js';

let server: TestServer;
let owner: Admin;

before(async () => {
  server = await startServer();
  owner = await bootstrapAdmin(server);
});

after(async () => {
  await server?.dispose();
});

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

describe('content-service mcp (stdio)', () => {
  test('stdout carries only JSON-RPC messages, also around a refusal and a bad call; diagnostics go to stderr', async () => {
    const model = await owner.createProductModel();
    const child = spawn(process.execPath, [CLI, 'mcp'], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        CONTENT_SERVICE_URL: server.url,
        CONTENT_SERVICE_TOKEN: owner.token,
        CONTENT_SERVICE_WORKSPACE_ID: owner.workspaceId,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const lines: string[] = [];
    const answered = new Map<number, (message: any) => void>();
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      const message = JSON.parse(line) as { id?: number };
      if (message.id !== undefined) answered.get(message.id)?.(message);
    });
    const send = (message: { id?: number }) =>
      withDeadline(
        new Promise<any>((resolve) => {
          if (message.id !== undefined) answered.set(message.id, resolve);
          child.stdin.write(JSON.stringify(message) + '\n');
          if (message.id === undefined) resolve(undefined);
        }),
        { timeoutMs: 20_000, message: `no answer to ${JSON.stringify(message).slice(0, 80)}` },
      );
    try {
      const init = await send(INITIALIZE);
      assert.equal(init.result.serverInfo.name, 'content-service');
      await send({ jsonrpc: '2.0', method: 'notifications/initialized' } as { id?: number });
      const refusal = await send({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'create_record', arguments: { modelSlug: model.slug, data: { sku: 'A', title: 'T', price: 'x' } } },
      } as { id?: number });
      assert.equal(refusal.result.isError, true);
      assert.match(refusal.result.content[0].text, /^price: /);
      const unknown = await send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'no_such_tool' } } as {
        id?: number;
      });
      assert.ok(unknown.error || unknown.result?.isError, JSON.stringify(unknown));
      const list = await send({
        jsonrpc: '2.0',
        id: 4,
        method: 'tools/call',
        params: { name: 'list_records', arguments: { modelSlug: model.slug } },
      } as { id?: number });
      assert.equal(JSON.parse(list.result.content[0].text).total, 0);
    } finally {
      child.stdin.end();
      await new Promise((resolve) => child.once('exit', resolve));
    }
    assert.equal(child.exitCode, 0, 'stdin closed: the process ends');
    assert.equal(lines.length, 4, lines.join('\n'));
    for (const line of lines) assert.equal(JSON.parse(line).jsonrpc, '2.0');
    assert.match(stderr, /serving http:\/\/127\.0\.0\.1:\d+ \(workspace /);
  });

  test('without credentials: exit 2 naming what is missing, nothing on stdout', async () => {
    const result = await runCli(['mcp'], {
      env: { CONTENT_SERVICE_URL: undefined, CONTENT_SERVICE_TOKEN: undefined, CONTENT_SERVICE_WORKSPACE_ID: undefined },
    });
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '');
    assert.match(
      result.stderr,
      /Missing --token \(or CONTENT_SERVICE_TOKEN\), --workspace-id \(or CONTENT_SERVICE_WORKSPACE_ID\)/,
    );
  });
});

describe('POST /mcp (Streamable HTTP)', () => {
  const post = (headers: Record<string, string>, body: unknown = INITIALIZE) =>
    fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
    });

  test('without a token, with a wrong one or with another workspace id: 401 as /graphql answers', async () => {
    const other = await server.bootstrap({ org: 'other', workspace: 'main' });
    for (const headers of <Record<string, string>[]>[
      {},
      { authorization: 'Bearer cs_not_a_token', 'x-workspace-id': owner.workspaceId },
      { authorization: `Bearer ${owner.token}` },
      { authorization: `Bearer ${owner.token}`, 'x-workspace-id': other.workspaceId },
    ]) {
      const response = await post(headers);
      assert.equal(response.status, 401, JSON.stringify(headers));
      assert.deepEqual(await response.json(), {
        errors: [{ message: 'Not authorized', extensions: { code: 'UNAUTHENTICATED' } }],
      });
    }
  });

  test('with the token: initialize answers, as an event stream', async () => {
    const response = await post({ authorization: `Bearer ${owner.token}`, 'x-workspace-id': owner.workspaceId });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /text\/event-stream/);
    const text = await response.text();
    const data = /^data: (.*)$/m.exec(text)?.[1];
    assert.ok(data, text);
    assert.equal(JSON.parse(data).result.serverInfo.name, 'content-service');
  });

  test('GET and DELETE /mcp: 405, POST only (stateless: no stream, no session), in the errors shape of every route', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(`${server.url}/mcp`, {
        method,
        headers: { authorization: `Bearer ${owner.token}`, 'x-workspace-id': owner.workspaceId },
      });
      assert.equal(response.status, 405, method);
      assert.equal(response.headers.get('allow'), 'POST');
      assert.deepEqual(await response.json(), {
        errors: [{ message: 'Method not allowed: use POST /mcp', extensions: { code: 'BAD_USER_INPUT' } }],
      });
    }
  });

  test('a request the transport refuses (an Accept without text/event-stream; not JSON-RPC): its status, in the errors shape', async () => {
    const headers = { authorization: `Bearer ${owner.token}`, 'x-workspace-id': owner.workspaceId };
    const cases: [Record<string, string>, unknown, number][] = [
      [{ ...headers, accept: 'application/json' }, INITIALIZE, 406],
      [headers, { not: 'a JSON-RPC message' }, 400],
    ];
    for (const [sent, body, status] of cases) {
      const response = await post(sent, body);
      assert.equal(response.status, status, JSON.stringify(sent));
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
      const answer = (await response.json()) as { errors: { message: string; extensions: { code: string } }[] };
      assert.equal(answer.errors.length, 1, JSON.stringify(answer));
      assert.equal(answer.errors[0]!.extensions.code, 'BAD_USER_INPUT');
      assert.ok(answer.errors[0]!.message.length > 0);
    }
  });
});
