// A webhook receiver for Content Service: verifies each delivery with the Standard Webhooks library, handles each
// event once (a retry carries the same webhook-id) and ignores an event older than one already applied to the same
// record (data.sequence grows with every event of the workspace).
//
//   npm install standardwebhooks
//   WEBHOOK_SECRET=whsec_... PORT=3000 node webhook-receiver.mjs
//
// It prints one line of JSON per event it handles (an event it skips as stale with "stale": true). A real receiver keeps `handled` and `newest` in its database
// and answers quickly (2xx within the 10 s timeout), doing slow work after answering.
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

const secret = process.env.WEBHOOK_SECRET;
if (!secret) {
  console.error('Set WEBHOOK_SECRET to the whsec_… secret shown when the webhook was created.');
  process.exit(1);
}
const verifier = new Webhook(secret);
const handled = new Set(); // webhook-id of every event already handled
const newest = new Map(); // record id → sequence of the newest event applied to it
const MAX_BODY = 1024 * 1024;

function apply(event) {
  const { type, data } = event;
  const recordId = data.record?.id;
  if (recordId !== undefined) {
    if ((newest.get(recordId) ?? -1) > data.sequence) return { type, recordId, sequence: data.sequence, stale: true };
    newest.set(recordId, data.sequence);
  }
  // Here: rebuild the page, update the search index, purge the cache…
  return { type, recordId, recordIds: data.recordIds, sequence: data.sequence };
}

const server = createServer((request, response) => {
  if (request.method !== 'POST') {
    response.writeHead(405, { allow: 'POST' }).end();
    return;
  }
  const chunks = [];
  let size = 0;
  request.on('data', (chunk) => {
    size += chunk.length;
    if (size > MAX_BODY) request.destroy();
    else chunks.push(chunk);
  });
  request.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    let event;
    try {
      // Checks the signature (with the raw body, before any parsing) and that the timestamp is recent.
      event = verifier.verify(body, request.headers);
    } catch {
      response.writeHead(401).end();
      return;
    }
    const id = request.headers['webhook-id'];
    if (handled.has(id)) {
      response.writeHead(204).end(); // a retry of an event already handled: acknowledge, do nothing
      return;
    }
    handled.add(id);
    console.log(JSON.stringify({ id, ...apply(event) }));
    response.writeHead(204).end();
  });
});

server.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? '127.0.0.1', () => {
  const { address, port } = server.address();
  console.error(`Listening on http://${address}:${port}/`);
});
