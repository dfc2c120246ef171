// The errors of the media routes (uploads, tus, serving): the same JSON `errors` body as every other route.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../domain/errors.js';
import { MediaInputError, UploadTooLarge } from '../media/errors.js';
import { RenderBusy } from '../media/render-queue.js';
import { sendRefusal } from './reply.js';

export function tooLarge(maxBytes: number): ServiceError {
  return new ServiceError('PAYLOAD_TOO_LARGE', `file: larger than the ${Math.round(maxBytes / 1048576)} MB upload limit`, {
    field: 'file',
    maxUploadBytes: maxBytes,
  });
}

export function mediaRefusal(field: string, reason: string): ServiceError {
  return new ServiceError('BAD_USER_INPUT', `${field}: ${reason}`, { field });
}

/** The service error a media failure answers as; anything unexpected is rethrown (a 500 without details). */
export function asServiceError(error: unknown, maxBytes = 0): ServiceError {
  if (error instanceof ServiceError) return error;
  if (error instanceof UploadTooLarge) return tooLarge(error.limitBytes || maxBytes);
  if (error instanceof MediaInputError) return mediaRefusal(error.field, error.reason);
  if (error instanceof RenderBusy) {
    return new ServiceError('UNAVAILABLE', 'Too many image transforms at once; retry shortly', {
      retryAfter: error.retryAfterSeconds,
    });
  }
  throw error;
}

export function sendMediaError(request: FastifyRequest, reply: FastifyReply, error: unknown, maxBytes = 0) {
  const refusal = asServiceError(error, maxBytes);
  if (refusal.code === 'UNAVAILABLE') reply.header('retry-after', String(refusal.extensions.retryAfter));
  reply.header('cache-control', 'no-store');
  return sendRefusal(request, reply, refusal);
}
