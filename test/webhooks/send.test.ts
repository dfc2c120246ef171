// One delivery attempt against real receivers (node:http on 127.0.0.1, the guard lifted with allowPrivate), and the
// guard in place: 127.0.0.1 refused before any connection is made.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, test } from 'node:test';
import { parseRetryAfter, sendWebhook, type SendRequest } from '../../src/webhooks/send.js';

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

interface Receiver {
  url: string;
  port: number;
  received: Received[];
  connections: number;
  server: Server;
}

const servers: Server[] = [];
after(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function receiver(answer: (request: Received, response: ServerResponse) => void): Promise<Receiver> {
  const state = { received: [] as Received[], connections: 0 };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const received = {
        method: request.method!,
        url: request.url!,
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      state.received.push(received);
      answer(received, response);
    });
  });
  server.on('connection', (_socket: Socket) => (state.connections += 1));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/in?x=1`,
    port,
    server,
    received: state.received,
    get connections() {
      return state.connections;
    },
  };
}

function delivery(url: string, overrides: Partial<SendRequest> = {}): SendRequest {
  return {
    url,
    body: JSON.stringify({ type: 'webhook.ping', data: { text: 'é' } }),
    headers: { 'webhook-id': 'evt_1', 'webhook-timestamp': '1764064800', 'webhook-signature': 'v1,abc=' },
    timeoutMs: 5000,
    allowPrivate: true,
    ...overrides,
  };
}

test('a 2xx: the POST arrives with the body, the signing headers, JSON content type and a user agent', async () => {
  const target = await receiver((_request, response) => response.writeHead(204).end());
  const request = delivery(target.url);
  const outcome = await sendWebhook(request);
  assert.equal(outcome.statusCode, 204);
  assert.equal(outcome.error, null);
  assert.equal(outcome.retryAfterSeconds, null);
  assert.ok(outcome.durationMs >= 0 && outcome.durationMs < 5000);
  assert.equal(target.received.length, 1);
  const [received] = target.received;
  assert.equal(received!.method, 'POST');
  assert.equal(received!.url, '/hooks/in?x=1');
  assert.equal(received!.body, request.body);
  assert.equal(received!.headers['content-type'], 'application/json');
  assert.equal(received!.headers['content-length'], String(Buffer.byteLength(request.body)));
  assert.equal(received!.headers['webhook-id'], 'evt_1');
  assert.equal(received!.headers['webhook-timestamp'], '1764064800');
  assert.equal(received!.headers['webhook-signature'], 'v1,abc=');
  assert.match(received!.headers['user-agent']!, /^content-service-webhooks\//);
  assert.equal(received!.headers.host, `127.0.0.1:${target.port}`);
});

test('a host name is resolved and connected to, the Host header keeps the name', async () => {
  const target = await receiver((_request, response) => response.writeHead(200).end('ok'));
  const outcome = await sendWebhook(delivery(`http://localhost:${target.port}/named`));
  // localhost may resolve to ::1 first; the pinned lookup offers every checked address, so 127.0.0.1 is reached.
  assert.equal(outcome.statusCode, 200, String(outcome.error));
  assert.equal(target.received[0]!.headers.host, `localhost:${target.port}`);
});

test('a 500 is an answer: its status, no error', async () => {
  const target = await receiver((_request, response) => response.writeHead(500).end('boom'));
  const outcome = await sendWebhook(delivery(target.url));
  assert.deepEqual({ ...outcome, durationMs: 0 }, { statusCode: 500, error: null, durationMs: 0, retryAfterSeconds: null });
});

test('a 429 with Retry-After in seconds, and one with an HTTP date', async () => {
  const inSeconds = await receiver((_request, response) => response.writeHead(429, { 'retry-after': '120' }).end());
  const seconds = await sendWebhook(delivery(inSeconds.url));
  assert.equal(seconds.statusCode, 429);
  assert.equal(seconds.retryAfterSeconds, 120);

  const later = new Date(Date.now() + 90_000).toUTCString();
  const asDate = await receiver((_request, response) => response.writeHead(429, { 'retry-after': later }).end());
  const dated = await sendWebhook(delivery(asDate.url));
  assert.equal(dated.statusCode, 429);
  assert.ok(dated.retryAfterSeconds! >= 85 && dated.retryAfterSeconds! <= 91, String(dated.retryAfterSeconds));
});

test('Retry-After: seconds, HTTP dates (a past one is 0), and nonsense ignored', () => {
  const now = Date.parse('2026-11-25T10:00:00Z');
  assert.equal(parseRetryAfter('0', now), 0);
  assert.equal(parseRetryAfter(' 30 ', now), 30);
  assert.equal(parseRetryAfter('Wed, 25 Nov 2026 10:01:00 GMT', now), 60);
  assert.equal(parseRetryAfter('Wed, 25 Nov 2026 09:00:00 GMT', now), 0);
  assert.equal(parseRetryAfter(undefined, now), null);
  assert.equal(parseRetryAfter('soon', now), null);
  assert.equal(parseRetryAfter('-5', now), null);
  assert.equal(parseRetryAfter('1.5', now), null);
});

test('a redirect is not followed: the 301 is the answer and its Location receives nothing', async () => {
  const elsewhere = await receiver((_request, response) => response.writeHead(200).end());
  const redirecting = await receiver((_request, response) => response.writeHead(301, { location: elsewhere.url }).end());
  const outcome = await sendWebhook(delivery(redirecting.url));
  assert.equal(outcome.statusCode, 301);
  assert.equal(outcome.error, null);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(elsewhere.received.length, 0);
  assert.equal(elsewhere.connections, 0);
});

test('a receiver that does not answer in time: "timeout after <n> ms", no status', async () => {
  const silent = await receiver(() => {}); // reads the request, never answers
  const started = Date.now();
  const outcome = await sendWebhook(delivery(silent.url, { timeoutMs: 300 }));
  assert.deepEqual({ statusCode: outcome.statusCode, error: outcome.error }, { statusCode: null, error: 'timeout after 300 ms' });
  assert.ok(Date.now() - started < 3000);
  assert.ok(outcome.durationMs >= 250, String(outcome.durationMs));
  assert.equal(silent.received.length, 1);
});

test('nobody listening: "connection refused"', async () => {
  const closed = await receiver(() => {});
  await new Promise((resolve) => closed.server.close(resolve));
  const outcome = await sendWebhook(delivery(closed.url));
  assert.equal(outcome.statusCode, null);
  assert.equal(outcome.error, 'connection refused');
});

test('a large response body is read only in part, and the answer does not wait for it', async () => {
  const chatty = await receiver((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let sent = 0;
    const more = () => {
      while (sent < 200 && response.write(chunk)) sent += 1;
      if (sent < 200) response.once('drain', more);
      else response.end();
    };
    more();
  });
  const outcome = await sendWebhook(delivery(chatty.url));
  assert.equal(outcome.statusCode, 200);
  assert.equal(outcome.error, null);
});

test('with the guard in place, 127.0.0.1 is refused and no connection is made', async () => {
  const target = await receiver((_request, response) => response.writeHead(200).end());
  const outcome = await sendWebhook(delivery(target.url, { allowPrivate: false }));
  assert.equal(outcome.statusCode, null);
  assert.equal(outcome.error, 'url: 127.0.0.1 is a private address; webhooks go to public addresses only');
  const named = await sendWebhook(delivery(`http://localhost:${target.port}/`, { allowPrivate: false }));
  assert.match(named.error!, /^url: localhost resolves to a private address/);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(target.connections, 0);
  assert.equal(target.received.length, 0);
});

test('a URL that is not http(s) fails the attempt with the reason, without throwing', async () => {
  const outcome = await sendWebhook(delivery('ftp://127.0.0.1/x'));
  assert.equal(outcome.statusCode, null);
  assert.equal(outcome.error, 'url: must be http:// or https://');
});

test('attempts to one receiver reuse a kept-alive connection', async () => {
  const target = await receiver((_request, response) => response.writeHead(204).end());
  for (let n = 0; n < 5; n++) assert.equal((await sendWebhook(delivery(target.url))).statusCode, 204);
  assert.equal(target.received.length, 5);
  assert.equal(target.connections, 1);
});

test('a kept-alive connection the receiver closed meanwhile does not fail the next attempt', async () => {
  const target = await receiver((_request, response) => response.writeHead(204).end());
  target.server.keepAliveTimeout = 30;
  assert.equal((await sendWebhook(delivery(target.url))).statusCode, 204);
  await new Promise((resolve) => setTimeout(resolve, 150));
  const again = await sendWebhook(delivery(target.url));
  assert.equal(again.statusCode, 204, String(again.error));
  assert.equal(target.connections, 2);
});

test('a receiver that closes each connection after answering: every attempt still gets its answer', async () => {
  const target = await receiver((_request, response) => response.writeHead(200, { connection: 'close' }).end());
  for (let n = 0; n < 3; n++) assert.equal((await sendWebhook(delivery(target.url))).statusCode, 200);
  assert.equal(target.connections, 3);
});
