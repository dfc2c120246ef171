// Standard Webhooks signing (https://www.standardwebhooks.com): a `whsec_` secret, and the three headers a receiver
// verifies with any Standard Webhooks library. During a rotation the body is signed with each secret, so a receiver
// holding either the old or the new secret accepts it.
import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';
/** 32 random bytes: above the 24 the contract asks for, and the key length of HMAC-SHA256. */
const SECRET_BYTES = 32;

export type WebhookHeaders = Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string>;

/** A new signing secret: "whsec_" + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** Keys of the secrets signed with lately: a delivery would otherwise decode its webhook's secret again. */
const keys = new Map<string, KeyObject>();
const MAX_KEYS = 1024;

/** The key a secret stands for: the base64 after "whsec_" (a secret without the prefix is read as base64 too). */
function keyOf(secret: string): KeyObject {
  let key = keys.get(secret);
  if (key) return key;
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const bytes = Buffer.from(encoded, 'base64');
  if (bytes.length === 0) throw new Error('webhook secret: empty key');
  key = createSecretKey(bytes);
  if (keys.size >= MAX_KEYS) keys.clear();
  keys.set(secret, key);
  return key;
}

/**
 * The Standard Webhooks headers for one delivery: `webhook-signature` holds `v1,<base64 HMAC-SHA256 of
 * "<id>.<timestamp>.<body>">` once per secret, space-separated (two secrets during a rotation).
 */
export function signWebhook(input: {
  id: string;
  timestampSeconds: number;
  body: string;
  secrets: readonly string[];
}): WebhookHeaders {
  if (input.secrets.length === 0) throw new Error('webhook signing: no secret');
  const timestamp = String(Math.floor(input.timestampSeconds));
  const signed = `${input.id}.${timestamp}.${input.body}`;
  const signatures = input.secrets.map(
    (secret) => `v1,${createHmac('sha256', keyOf(secret)).update(signed, 'utf8').digest('base64')}`,
  );
  return { 'webhook-id': input.id, 'webhook-timestamp': timestamp, 'webhook-signature': signatures.join(' ') };
}
