// Limits against stalling: credentials are checked before a body is read, the delivery route reads small bodies
// only, and clients too slow to send their request (headers or body) are cut off. Raw TCP, so the test controls
// exactly what the server has received when it answers.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Admin, bootstrapAdmin, NOT_AUTHORIZED_BODY, request } from '../support/client.js';
import { startServer, type TestServer } from '../support/server.js';

const REQUEST_TIMEOUT_MS = 2000;
const HEADERS_TIMEOUT_MS = 1000;
const KEEP_ALIVE_TIMEOUT_MS = 1000;
const MAX_CONNECTIONS = 8;

let server: TestServer;
let owner: Admin;

before(async () => {
  server = await startServer({
    env: {
      REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_TIMEOUT_MS),
      MAX_CONNECTIONS: String(MAX_CONNECTIONS),
    },
  });
  owner = await bootstrapAdmin(server);
});

after(async () => {
  await server?.dispose();
});

/** A raw connection that records what the server sends and when it closes. */
class RawClient {
  readonly socket: Socket;
  received = '';
  readonly closed: Promise<void>;
  private writing = true;

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.setEncoding('utf8');
    this.socket.on('data', (chunk: string) => {
      this.received += chunk;
    });
    this.socket.on('error', () => undefined);
    this.closed = new Promise((resolve) => this.socket.once('close', () => resolve()));
    this.socket.once('close', () => {
      this.writing = false;
    });
  }

  connected(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.socket.once('connect', resolve);
      this.socket.once('error', reject);
    });
  }

  write(text: string | Buffer): void {
    if (this.writing && !this.socket.destroyed) this.socket.write(text);
  }

  /** Sends `text` one byte every `intervalMs`, until sent or the connection closes. */
  async trickle(text: string, intervalMs: number): Promise<void> {
    for (const byte of text) {
      if (!this.writing || this.socket.destroyed) return;
      this.write(byte);
      await sleep(intervalMs);
    }
  }

  /** Resolves when the server has sent a whole answer (headers and Content-Length bytes of body). */
  async answer(timeoutMs: number): Promise<{ status: number; headers: string; body: string }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const parsed = parseAnswer(this.received);
      if (parsed) return parsed;
      if (Date.now() > deadline)
        throw new Error(`no whole answer within ${timeoutMs} ms; received so far: ${JSON.stringify(this.received)}`);
      await sleep(20);
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

function parseAnswer(text: string): { status: number; headers: string; body: string } | undefined {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const headers = text.slice(0, end);
  const length = Number(/\r\ncontent-length: *(\d+)/i.exec(headers)?.[1] ?? NaN);
  const body = text.slice(end + 4);
  if (!Number.isFinite(length) || Buffer.byteLength(body) < length) return undefined;
  return { status: Number(headers.split(' ')[1]), headers, body };
}

async function rawClient(): Promise<RawClient> {
  const client = new RawClient(server.port);
  await client.connected();
  return client;
}

/** Within `ms`, or fails: the bound is the behaviour under test (cut off or answered before the body ends). */
async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe('credentials before the body', () => {
  // Just under the 10 MB body limit, so that only the credentials can refuse it early.
  const DECLARED_LENGTH = 10 * 1024 * 1024 - 1024;

  const cases: { what: string; headers: string }[] = [
    { what: 'an unknown token', headers: `authorization: Bearer cs_unknown0000000000000000\r\nx-workspace-id: whatever\r\n` },
    { what: 'no credentials at all', headers: '' },
    {
      what: 'an unknown session cookie',
      headers: `cookie: cs_session=not-a-session\r\nx-csrf-token: x\r\nx-workspace-id: whatever\r\n`,
    },
  ];
  for (const { what, headers } of cases) {
    test(`POST /graphql with ${what} and a large body still being sent: 401 at once, the body never read`, async () => {
      const client = await rawClient();
      try {
        client.write(
          `POST /graphql HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\naccept: application/json\r\n` +
            `${headers}content-length: ${DECLARED_LENGTH}\r\n\r\n`,
        );
        // A start of a body that is not even JSON: parsing it would be a 400, not a 401.
        client.write(Buffer.alloc(64 * 1024, 'x'));
        const answer = await client.answer(5000);
        assert.equal(answer.status, 401, answer.headers);
        assert.deepEqual(JSON.parse(answer.body), NOT_AUTHORIZED_BODY);
        // The 401 came while nine tenths of the body were still unsent.
      } finally {
        client.close();
      }
    });
  }

  test('GET /graphql with an unknown token: 401 with the same body', async () => {
    const response = await request(`${server.adminUrl}?query=${encodeURIComponent('{ model { list { id } } }')}`, {
      headers: { accept: 'application/json', authorization: 'Bearer cs_unknown', 'x-workspace-id': owner.workspaceId },
    });
    assert.equal(response.status, 401);
    assert.deepEqual(response.body, NOT_AUTHORIZED_BODY);
  });

  test('a valid token with a body is answered as before', async () => {
    const data = await owner.ok('{ model { list { id } } }');
    assert.deepEqual(data.model.list, []);
  });
});

describe('the delivery route reads small bodies only', () => {
  test('a body over 64 KB (the default) is refused with 413 PAYLOAD_TOO_LARGE; a short query is answered', async () => {
    const body = JSON.stringify({
      query: '{ public { model { definitions { slug } } } }',
      variables: { pad: 'x'.repeat(65 * 1024) },
    });
    const tooLarge = await request(server.deliveryUrl('acme', 'main'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    assert.equal(tooLarge.status, 413, tooLarge.text);
    assert.equal(tooLarge.body.errors[0].extensions.code, 'PAYLOAD_TOO_LARGE');
    assert.match(tooLarge.body.errors[0].message, /65536 bytes/);

    const small = await request(server.deliveryUrl('acme', 'main'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ public { model { definitions { slug } } } }' }),
    });
    assert.equal(small.status, 200, small.text);
  });

  test('PUBLIC_BODY_LIMIT_BYTES sets the limit', async () => {
    const small = await startServer({ env: { PUBLIC_BODY_LIMIT_BYTES: '1024' } });
    try {
      await small.bootstrap({ org: 'acme', workspace: 'main' });
      const query = '{ public { model { definitions { slug } } } }';
      const over = await request(small.deliveryUrl('acme', 'main'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables: { pad: 'x'.repeat(1100) } }),
      });
      assert.equal(over.status, 413, over.text);
      assert.equal(over.body.errors[0].extensions.code, 'PAYLOAD_TOO_LARGE');
      const under = await request(small.deliveryUrl('acme', 'main'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables: { pad: 'x'.repeat(800) } }),
      });
      assert.equal(under.status, 200, under.text);
    } finally {
      await small.dispose();
    }
  });
});

describe('slow clients are cut off', () => {
  test(`a body sent one byte a second is cut off after the request timeout (${REQUEST_TIMEOUT_MS} ms) with 408`, async () => {
    const client = await rawClient();
    try {
      const body = JSON.stringify({ query: '{ public { model { definitions { slug } } } }' });
      client.write(
        `POST /public/acme/main/graphql HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`,
      );
      // Sending the whole body this way would take about a minute.
      void client.trickle(body, 1000);
      await within(REQUEST_TIMEOUT_MS + 5000, 'the server closing the slow connection', client.closed);
      const answer = parseAnswer(client.received);
      assert.equal(answer?.status, 408, client.received);
      assert.equal(JSON.parse(answer!.body).errors[0].extensions.code, 'BAD_USER_INPUT');
    } finally {
      client.close();
    }
  });

  test(`headers sent one byte a second are cut off after the headers timeout (${HEADERS_TIMEOUT_MS} ms) with 408`, async () => {
    const client = await rawClient();
    try {
      client.write('GET /healthz HTTP/1.1\r\n');
      void client.trickle('host: 127.0.0.1\r\nx-slow: abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz\r\n\r\n', 1000);
      await within(HEADERS_TIMEOUT_MS + 5000, 'the server closing the slow connection', client.closed);
      assert.equal(parseAnswer(client.received)?.status, 408, client.received);
    } finally {
      client.close();
    }
  });

  test(`an idle keep-alive connection is closed after the keep-alive timeout (${KEEP_ALIVE_TIMEOUT_MS} ms)`, async () => {
    const client = await rawClient();
    try {
      client.write('GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
      const answer = await client.answer(5000);
      assert.equal(answer.status, 200);
      assert.match(answer.headers, /keep-alive: timeout=1/i);
      await within(KEEP_ALIVE_TIMEOUT_MS + 5000, 'the server closing the idle connection', client.closed);
    } finally {
      client.close();
    }
  });

  test(`connections over MAX_CONNECTIONS (${MAX_CONNECTIONS}) are closed at once`, async () => {
    const held: RawClient[] = [];
    try {
      // Connections that are open but have sent nothing yet; the headers timeout ends them later.
      for (let i = 0; i < MAX_CONNECTIONS; i++) held.push(await rawClient());
      await sleep(100);
      const extra = await rawClient();
      held.push(extra);
      extra.write('GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
      await within(3000, 'the server closing the connection over the cap', extra.closed);
      assert.equal(extra.received, '');
    } finally {
      for (const client of held) client.close();
    }
    // Once they are gone, the server answers again.
    await sleep(100);
    const health = await request(`${server.url}/healthz`);
    assert.equal(health.status, 200);
  });
});
