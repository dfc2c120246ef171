// The API token's form: what the token service issues and what auth checks a request's token against.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const TOKEN_PREFIX = 'cs_';

/** A new API token: `cs_` and 32 random bytes. Only its hash is ever stored. */
export function generateToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** Tokens carry 256 random bits, so one SHA-256 is enough to make the stored value useless to a reader. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
