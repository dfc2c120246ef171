// Delivery attempts sent from a thread of their own: an HTTP request costs the event loop about as much as the
// write that made the event, so the worker hands the request (URL, signed body, headers) to this thread and gets the
// outcome back; the server's event loop keeps serving writes. Same rules as sendWebhook (it is what the thread runs).
import { Worker } from 'node:worker_threads';
import type { SendOutcome, SendRequest } from './send.js';

interface Answer {
  id: number;
  outcome: SendOutcome;
}

/** Requests and answers cross between the threads in batches, one message per turn of the event loop: a message costs more than a request's copy. */
export interface RequestBatch {
  requests: { id: number; request: SendRequest }[];
}
export interface AnswerBatch {
  answers: Answer[];
}

/** One thread sending every attempt of this process; `send` has the signature of sendWebhook. */
export class SendThread {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, (outcome: SendOutcome) => void>();
  private nextId = 0;
  private failure: string | null = null;
  private batch: RequestBatch['requests'] = [];

  constructor() {
    this.worker = new Worker(new URL('./send-thread-main.js', import.meta.url));
    this.worker.unref();
    this.worker.on('message', ({ answers }: AnswerBatch) => {
      for (const { id, outcome } of answers) {
        const resolve = this.waiting.get(id);
        this.waiting.delete(id);
        resolve?.(outcome);
      }
      if (this.waiting.size === 0) this.worker.unref();
    });
    // A thread that fails answers every attempt it held, and those sent after, as failed (retried as network errors).
    const fail = (text: string) => {
      this.failure = text;
      for (const resolve of this.waiting.values()) resolve(failed(text));
      this.waiting.clear();
    };
    this.worker.on('error', (error) => fail(`sender thread failed: ${error.message}`));
    this.worker.on('exit', () => fail('sender thread stopped'));
  }

  readonly send = (request: SendRequest): Promise<SendOutcome> => {
    if (this.failure !== null) return Promise.resolve(failed(this.failure));
    const id = this.nextId++;
    return new Promise((resolve) => {
      if (this.waiting.size === 0) this.worker.ref();
      this.waiting.set(id, resolve);
      this.batch.push({ id, request });
      if (this.batch.length === 1) setImmediate(this.flush);
    });
  };

  private readonly flush = (): void => {
    const requests = this.batch;
    this.batch = [];
    if (this.failure === null) this.worker.postMessage({ requests } satisfies RequestBatch);
  };

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}

function failed(error: string): SendOutcome {
  return { statusCode: null, error, durationMs: 0, retryAfterSeconds: null };
}
