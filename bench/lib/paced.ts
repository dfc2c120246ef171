import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { latencySummary, type LatencySummary } from './stats.js';

/** User + system CPU time of a process so far, all its threads, in microseconds (from /proc: 10 ms clock ticks). */
export function processCpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

export interface CountResult extends LatencySummary {
  requests: number;
  seconds: number;
  requestsPerSecond: number;
}

/**
 * Exactly `total` requests from `concurrency` workers, each sending its next one as soon as the previous answered
 * (a closed loop of a fixed count). `send(n)` makes request n and resolves with its latency in ms.
 */
export async function fixedCount(concurrency: number, total: number, send: (n: number) => Promise<number>): Promise<CountResult> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, total) }, async () => {
      while (next < total) {
        const n = next++;
        latencies.push(await send(n));
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { ...latencySummary(latencies), requests: total, seconds, requestsPerSecond: total / seconds };
}

export interface PacedResult extends LatencySummary {
  requests: number;
  seconds: number;
  /** The rate asked for, and the rate the requests were started at. */
  targetPerSecond: number;
  startedPerSecond: number;
  /** How late the last request started against its schedule, ms (the client fell behind when large). */
  lateMs: number;
}

/**
 * An open loop: requests started at `perSecond` on a fixed schedule (request n at n / perSecond s), whatever the
 * answers take, for `durationMs`; resolves when every one has answered. Requests are started in batches on a 5 ms
 * timer, each on its schedule's tick, so that a late timer does not lower the rate.
 */
export async function paced(perSecond: number, durationMs: number, send: (n: number) => Promise<number>): Promise<PacedResult> {
  const total = Math.max(1, Math.round((perSecond * durationMs) / 1000));
  const latencies: number[] = [];
  const inFlight: Promise<void>[] = [];
  const started = performance.now();
  let n = 0;
  let lateMs = 0;
  while (n < total) {
    const now = performance.now();
    while (n < total && (n * 1000) / perSecond <= now - started) {
      lateMs = now - started - (n * 1000) / perSecond;
      inFlight.push(send(n).then((ms) => void latencies.push(ms)));
      n++;
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const startSeconds = (performance.now() - started) / 1000;
  await Promise.all(inFlight);
  return {
    ...latencySummary(latencies),
    requests: total,
    seconds: (performance.now() - started) / 1000,
    targetPerSecond: perSecond,
    startedPerSecond: total / Math.max(startSeconds, 0.001),
    lateMs,
  };
}
