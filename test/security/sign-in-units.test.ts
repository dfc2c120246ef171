// The parts of the sign-in defences that need no server: the client address a limit is kept for, and the gate
// that bounds password hashes at once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PasswordHashGate } from '../../src/auth/password-gate.js';
import { clientAddressKey } from '../../src/auth/sign-in-throttle.js';

test('client address key: IPv4 as it is (also IPv4-mapped), IPv6 by its /64 network', () => {
  assert.equal(clientAddressKey('203.0.113.7'), '203.0.113.7');
  assert.equal(clientAddressKey('::ffff:203.0.113.7'), '203.0.113.7');
  assert.equal(clientAddressKey('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64');
  assert.equal(clientAddressKey('2001:db8:1:2::9'), '2001:db8:1:2::/64');
  assert.equal(clientAddressKey('2001:0DB8:0001:0002:ffff::1'), '2001:db8:1:2::/64');
  assert.equal(clientAddressKey('2001:db8::1'), '2001:db8:0:0::/64');
  assert.equal(clientAddressKey('::1'), '0:0:0:0::/64');
  assert.equal(clientAddressKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
  assert.equal(clientAddressKey('64:ff9b::192.0.2.1'), '64:ff9b:0:0::/64');
});

test('password hash gate: at most `concurrency + queue` admitted, the rest refused at once; `concurrency` hash at a time, in order', async () => {
  const gate = new PasswordHashGate(2, 3);
  let hashing = 0;
  let most = 0;
  const releases: (() => void)[] = [];
  const started: number[] = [];
  const derive = (index: number) => () =>
    new Promise<number>((resolve) => {
      hashing++;
      most = Math.max(most, hashing);
      started.push(index);
      releases.push(() => {
        hashing--;
        resolve(index);
      });
    });
  const calls = Array.from({ length: 7 }, (_, index) => gate.admit((hash) => hash(derive(index))));
  const refused = await Promise.all(calls.slice(5));
  assert.deepEqual(refused, [{ busy: true }, { busy: true }]);
  assert.deepEqual(started, [0, 1]);
  while (releases.length > 0) {
    releases.shift()!();
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.deepEqual(
    await Promise.all(calls.slice(0, 5)),
    [0, 1, 2, 3, 4].map((value) => ({ busy: false, value })),
  );
  assert.deepEqual(started, [0, 1, 2, 3, 4]);
  assert.equal(most, 2);
  assert.deepEqual(await gate.admit(async () => 'free again'), { busy: false, value: 'free again' });
});

test('password hash gate: a sign-in that fails frees its place', async () => {
  const gate = new PasswordHashGate(1, 0);
  await assert.rejects(
    gate.admit((hash) => hash(() => Promise.reject(new Error('database down')))),
    /database down/,
  );
  assert.deepEqual(await gate.admit((hash) => hash(async () => 1)), { busy: false, value: 1 });
});
