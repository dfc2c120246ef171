import type { Service } from './run.js';
import { latencySummary } from './stats.js';

/** Sends one request body; the client-side time and the request id the server logged it under. */
export type Send = (body: string) => Promise<{ ms: number; requestId: string }>;

/**
 * `requests` sequential requests of one body (or as many as fit in maxSeconds, at least 20) after 30 unmeasured
 * ones (or 3 s of them): p50/p99 client-side and server-side (the durationMs of the server's request log line).
 * `before` runs before each request, warm-up ones too; its own requests are not measured.
 */
export async function measureRequests(
  service: Service,
  send: Send,
  body: string,
  requests: number,
  maxSeconds: number,
  /** Runs before each request, unmeasured (a write the request must then see, say). */
  before: () => Promise<unknown> = async () => {},
) {
  const warmUntil = Date.now() + 3_000;
  for (let index = 0; index < 30 && (index < 3 || Date.now() < warmUntil); index++) {
    await before();
    await send(body);
  }
  const clientMs: number[] = [];
  const requestIds: string[] = [];
  const deadline = Date.now() + maxSeconds * 1000;
  while (clientMs.length < requests && (clientMs.length < 20 || Date.now() < deadline)) {
    await before();
    const result = await send(body);
    clientMs.push(result.ms);
    requestIds.push(result.requestId);
  }
  const serverMs = await service.server.serverTimes(requestIds);
  return { client: latencySummary(clientMs), server: latencySummary(serverMs.filter(Number.isFinite)) };
}
