// The sender thread (send-thread.ts): sends each request it is given with sendWebhook and posts the outcome back.
import { parentPort } from 'node:worker_threads';
import { sendWebhook, type SendRequest } from './send.js';

parentPort!.on('message', ({ id, request }: { id: number; request: SendRequest }) => {
  void sendWebhook(request).then((outcome) => parentPort!.postMessage({ id, outcome }));
});
