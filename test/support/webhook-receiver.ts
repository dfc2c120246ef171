// A real webhook receiver for tests: node:http on 127.0.0.1 that keeps every request it gets (headers, body, when)
// and answers as the test says, and checks each one with the reference Standard Webhooks verifier.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
  receivedAt: number;
  /** Requests in flight at this receiver when this one arrived (this one not counted). */
  concurrent: number;
}

/** How to answer one request: a status, headers, and a delay before answering (ms); `hang`: never answer. */
export interface Answer {
  status: number;
  headers?: Record<string, string>;
  delayMs?: number;
}

export type Responder = (request: Received, index: number) => Answer;

export class WebhookReceiver {
  readonly received: Received[] = [];
  responder: Responder = () => ({ status: 200 });
  private inFlight = 0;
  private readonly inFlightIds = new Map<string, number>();
  /** Event ids that arrived while an earlier request with the same id was still being answered. */
  readonly concurrentRepeats: string[] = [];
  private readonly open = new Set<ServerResponse>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(port = 0): Promise<WebhookReceiver> {
    let receiver: WebhookReceiver | undefined;
    const server = createServer((request, response) => receiver!.handle(request.headers, request, response));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    receiver = new WebhookReceiver(server, (server.address() as AddressInfo).port);
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  private handle(headers: IncomingHttpHeaders, request: NodeJS.ReadableStream, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const id = String(headers['webhook-id']);
      if ((this.inFlightIds.get(id) ?? 0) > 0) this.concurrentRepeats.push(id);
      this.inFlightIds.set(id, (this.inFlightIds.get(id) ?? 0) + 1);
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {
        // kept as text; the test will say so
      }
      const received: Received = { headers, body, json, receivedAt: Date.now(), concurrent: this.inFlight };
      this.inFlight++;
      const index = this.received.push(received) - 1;
      const answer = this.responder(received, index);
      this.open.add(response);
      const done = () => {
        this.inFlight--;
        this.inFlightIds.set(id, this.inFlightIds.get(id)! - 1);
        this.open.delete(response);
      };
      response.on('close', done);
      setTimeout(() => {
        if (response.destroyed) return;
        response.writeHead(answer.status, answer.headers);
        response.end('ok');
      }, answer.delayMs ?? 0);
    });
  }

  /** The requests with this event id (the webhook-id header), in arrival order. */
  byEventId(id: string): Received[] {
    return this.received.filter((request) => request.headers['webhook-id'] === id);
  }

  ofType(type: string): Received[] {
    return this.received.filter((request) => request.json?.type === type);
  }

  async close(): Promise<void> {
    for (const response of this.open) response.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Throws unless the request verifies with the secret (the reference library: signature, id, timestamp). */
export function verify(received: Received, secret: string): unknown {
  const headers = {
    'webhook-id': String(received.headers['webhook-id']),
    'webhook-timestamp': String(received.headers['webhook-timestamp']),
    'webhook-signature': String(received.headers['webhook-signature']),
  };
  return new Webhook(secret).verify(received.body, headers);
}
