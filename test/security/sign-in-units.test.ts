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

test('password hash gate: at most `concurrency` run, at most `queue` wait, the rest are refused at once, in order', async () => {
  const gate = new PasswordHashGate(2, 3);
  let running = 0;
  let most = 0;
  const releases: (() => void)[] = [];
  const started: number[] = [];
  const work = (index: number) => () =>
    new Promise<number>((resolve) => {
      running++;
      most = Math.max(most, running);
      started.push(index);
      releases.push(() => {
        running--;
        resolve(index);
      });
    });
  const calls = Array.from({ length: 7 }, (_, index) => gate.run(work(index)));
  const refused = await Promise.all(calls.slice(5));
  assert.deepEqual(refused, [{ busy: true }, { busy: true }]);
  assert.deepEqual(started, [0, 1]);
  while (releases.length > 0) {
    releases.shift()!();
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.deepEqual(await Promise.all(calls.slice(0, 5)), [0, 1, 2, 3, 4].map((value) => ({ busy: false, value })));
  assert.deepEqual(started, [0, 1, 2, 3, 4]);
  assert.equal(most, 2);
  assert.deepEqual(await gate.run(async () => 'free again'), { busy: false, value: 'free again' });
});
