// Standard Webhooks signing, checked with the reference verifier (the `standardwebhooks` package): what a receiver
// holding the secret accepts, what it refuses, and both secrets during a rotation.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { newWebhookSecret, signWebhook } from '../../src/webhooks/signing.js';

const body = JSON.stringify({
  type: 'record.created',
  timestamp: '2026-11-25T10:00:00.000Z',
  data: { sequence: 1, text: 'é ✓' },
});
const now = () => Math.floor(Date.now() / 1000);

test('a new secret is "whsec_" and the base64 of 32 random bytes, different every time', () => {
  const secrets = new Set(Array.from({ length: 50 }, () => newWebhookSecret()));
  assert.equal(secrets.size, 50);
  for (const secret of secrets) {
    assert.match(secret, /^whsec_[A-Za-z0-9+/]+=*$/);
    assert.equal(Buffer.from(secret.slice('whsec_'.length), 'base64').length, 32);
  }
});

test('the reference verifier accepts the signed body and answers the payload', () => {
  const secret = newWebhookSecret();
  const headers = signWebhook({ id: 'evt_1', timestampSeconds: now(), body, secrets: [secret] });
  assert.equal(headers['webhook-id'], 'evt_1');
  assert.match(headers['webhook-timestamp'], /^\d+$/);
  assert.match(headers['webhook-signature'], /^v1,[A-Za-z0-9+/]+=*$/);
  assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
});

test('the signature is the same as the reference implementation computes for the same id, time and body', () => {
  const secret = newWebhookSecret();
  const at = now();
  const headers = signWebhook({ id: 'msg_abc', timestampSeconds: at, body, secrets: [secret] });
  assert.equal(headers['webhook-signature'], new Webhook(secret).sign('msg_abc', new Date(at * 1000), body));
});

test('a fractional timestamp is written as whole seconds', () => {
  const secret = newWebhookSecret();
  const at = now() + 0.75;
  const headers = signWebhook({ id: 'evt_f', timestampSeconds: at, body, secrets: [secret] });
  assert.equal(headers['webhook-timestamp'], String(Math.floor(at)));
  new Webhook(secret).verify(body, headers);
});

test('another secret, a changed body, id or timestamp are refused by the verifier', () => {
  const secret = newWebhookSecret();
  const headers = signWebhook({ id: 'evt_2', timestampSeconds: now(), body, secrets: [secret] });
  assert.throws(() => new Webhook(newWebhookSecret()).verify(body, headers), /No matching signature/);
  assert.throws(
    () => new Webhook(secret).verify(body.replace('record.created', 'record.deleted'), headers),
    /No matching signature/,
  );
  assert.throws(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'evt_3' }), /No matching signature/);
  const earlier = String(Number(headers['webhook-timestamp']) - 1);
  assert.throws(() => new Webhook(secret).verify(body, { ...headers, 'webhook-timestamp': earlier }), /No matching signature/);
});

test('during a rotation both signatures are sent, space-separated, and a receiver with either secret accepts', () => {
  const previous = newWebhookSecret();
  const current = newWebhookSecret();
  const headers = signWebhook({ id: 'evt_rot', timestampSeconds: now(), body, secrets: [current, previous] });
  const signatures = headers['webhook-signature'].split(' ');
  assert.equal(signatures.length, 2);
  for (const signature of signatures) assert.match(signature, /^v1,/);
  assert.deepEqual(new Webhook(previous).verify(body, headers), JSON.parse(body));
  assert.deepEqual(new Webhook(current).verify(body, headers), JSON.parse(body));
  assert.throws(() => new Webhook(newWebhookSecret()).verify(body, headers), /No matching signature/);
});

test('signing without a secret is refused', () => {
  assert.throws(() => signWebhook({ id: 'evt', timestampSeconds: now(), body, secrets: [] }), /no secret/);
});
