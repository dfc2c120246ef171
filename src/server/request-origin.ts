import type { FastifyRequest } from 'fastify';
import { cameOverHttps } from '../auth/sessions.js';

/** The scheme, host and port the client reached: `Host` (and `X-Forwarded-Proto` behind a TLS-terminating proxy). */
export function requestOrigin(request: FastifyRequest): string {
  return `${cameOverHttps(request) ? 'https' : 'http'}://${request.host}`;
}
