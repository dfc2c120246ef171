import type { ServerOptions } from 'node:http';
import type { ServerConfig } from './config.js';

export type ConnectionLimits = Pick<
  ServerConfig,
  'requestTimeoutMs' | 'headersTimeoutMs' | 'keepAliveTimeoutMs' | 'maxConnections'
>;

/**
 * Fastify and node:http options against slow clients: a whole request (headers and body) must arrive within
 * the request timeout, its headers within the headers timeout, and an idle keep-alive connection is closed
 * after the keep-alive timeout. Node checks the first two every `connectionsCheckingInterval` (30 s by
 * default, far coarser than the timeouts), so the interval follows the shortest of them.
 */
export function connectionOptions(limits: ConnectionLimits): {
  requestTimeout: number;
  keepAliveTimeout: number;
  http: ServerOptions;
} {
  // node:http refuses a headers timeout longer than the request timeout.
  const headersTimeout = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  return {
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    http: {
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeout / 4))),
    },
  };
}
