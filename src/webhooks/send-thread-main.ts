// The sender thread (send-thread.ts): signs each request it is given and sends it with sendWebhook, and posts the
// outcomes back, those that come in the same turn of its event loop in one message.
import { parentPort } from 'node:worker_threads';
import { signAndSend } from './send.js';
import type { AnswerBatch, RequestBatch } from './send-thread.js';

let answers: AnswerBatch['answers'] = [];
const flush = (): void => {
  const batch = answers;
  answers = [];
  parentPort!.postMessage({ answers: batch } satisfies AnswerBatch);
};

parentPort!.on('message', ({ requests }: RequestBatch) => {
  for (const { id, request } of requests) {
    void signAndSend(request).then((outcome) => {
      answers.push({ id, outcome });
      if (answers.length === 1) setImmediate(flush);
    });
  }
});
