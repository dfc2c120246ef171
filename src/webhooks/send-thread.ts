// Delivery attempts sent from a thread of their own: an HTTP request costs the event loop about as much as the
// write that made the event, so the worker hands the request (URL, body, what to sign) to this thread and gets the
// outcome back; the server's event loop keeps serving writes. Same rules as sendWebhook (it is what the thread runs).
import { Worker } from 'node:worker_threads';
import type { SendOutcome, UnsignedSendRequest } from './send.js';

interface Answer {
  id: number;
  outcome: SendOutcome;
}

/** Requests and answers cross between the threads in batches, one message per turn of either event loop. */
export interface RequestBatch {
  requests: { id: number; request: UnsignedSendRequest }[];
}
export interface AnswerBatch {
  answers: Answer[];
}

/**
 * One thread signing and sending every attempt of this process; `send` takes an unsigned request. The thread starts with
 * the first attempt (a server without webhooks never starts it). A thread that fails answers the attempts it held
 * as failed (they are retried like network errors), and the next attempt starts a new one.
 */
export class SendThread {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, (outcome: SendOutcome) => void>();
  private nextId = 0;
  private batch: RequestBatch['requests'] = [];
  private closed = false;

  readonly send = (request: UnsignedSendRequest): Promise<SendOutcome> => {
    if (this.closed) return Promise.resolve(failed('the server is stopping'));
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.batch.push({ id, request });
      if (this.batch.length === 1) setImmediate(this.flush);
    });
  };

  private readonly flush = (): void => {
    const requests = this.batch;
    this.batch = [];
    if (requests.length === 0) return;
    const worker = this.worker ?? this.startWorker();
    worker.ref();
    worker.postMessage({ requests } satisfies RequestBatch);
  };

  private startWorker(): Worker {
    const worker = new Worker(new URL('./send-thread-main.js', import.meta.url));
    worker.on('message', ({ answers }: AnswerBatch) => {
      for (const { id, outcome } of answers) {
        const resolve = this.waiting.get(id);
        this.waiting.delete(id);
        resolve?.(outcome);
      }
      if (this.waiting.size === 0) worker.unref();
    });
    const fail = (text: string) => {
      if (this.worker !== worker) return;
      this.worker = null;
      for (const resolve of this.waiting.values()) resolve(failed(text));
      this.waiting.clear();
    };
    worker.on('error', (error) => fail(`sender thread failed: ${error.message}`));
    worker.on('exit', () => fail('sender thread stopped'));
    this.worker = worker;
    return worker;
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    if (worker) await worker.terminate();
  }
}

function failed(error: string): SendOutcome {
  return { statusCode: null, error, durationMs: 0, retryAfterSeconds: null };
}
