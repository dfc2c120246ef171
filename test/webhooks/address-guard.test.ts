// The SSRF guard: every range of the contract is refused, public addresses pass, and a URL is checked by what its
// host resolves to. Only numeric addresses and `localhost` are used: no name is looked up outside this machine and
// nothing is sent anywhere.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkWebhookUrl, isForbiddenAddress, resolveWebhookTarget, WebhookUrlError } from '../../src/webhooks/address-guard.js';

const FORBIDDEN: Record<string, string[]> = {
  'loopback 127.0.0.0/8': ['127.0.0.1', '127.0.0.0', '127.1.2.3', '127.255.255.255'],
  'private 10/8': ['10.0.0.0', '10.0.0.1', '10.255.255.255'],
  'private 172.16/12': ['172.16.0.0', '172.16.0.1', '172.20.10.5', '172.31.255.255'],
  'private 192.168/16': ['192.168.0.0', '192.168.1.1', '192.168.255.255'],
  'link-local 169.254/16 and the cloud metadata address': ['169.254.0.1', '169.254.169.254', '169.254.255.255'],
  'unspecified 0.0.0.0 (and 0/8)': ['0.0.0.0', '0.1.2.3'],
  'multicast 224/4': ['224.0.0.1', '239.255.255.250', '239.255.255.255'],
  'reserved 240/4 and broadcast': ['240.0.0.1', '255.255.255.255'],
  'carrier-grade NAT 100.64/10': ['100.64.0.1', '100.127.255.254'],
  'IPv6 loopback ::1': ['::1', '0:0:0:0:0:0:0:1'],
  'IPv6 unspecified ::': ['::', '0:0:0:0:0:0:0:0'],
  'IPv6 unique local fc00::/7 (fd00:ec2::254 is cloud metadata)': [
    'fc00::',
    'fc00::1',
    'fd12:3456::1',
    'fd00:ec2::254',
    'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
  ],
  'IPv6 link-local fe80::/10': ['fe80::', 'fe80::1', 'fe80::1%eth0', 'febf:ffff::1'],
  'IPv6 multicast ff00::/8': ['ff00::', 'ff02::1', 'ff0e::1'],
  'IPv4-mapped IPv6 of a forbidden IPv4': [
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::FFFF:10.0.0.1',
    '::ffff:169.254.169.254',
    '::ffff:192.168.0.1',
    '::ffff:0.0.0.0',
    '0:0:0:0:0:ffff:ac10:0001',
  ],
  'IPv4-compatible and NAT64 IPv6 of a forbidden IPv4': ['::127.0.0.1', '::10.0.0.1', '64:ff9b::127.0.0.1', '64:ff9b::a9fe:a9fe'],
  'not an IP address at all': ['', 'localhost', 'example.com', '127.0.0.1.', '1.2.3', '::ffff:999.0.0.1', 'fe80::1::2'],
};

const PUBLIC = [
  '1.1.1.1',
  '8.8.8.8',
  '93.184.216.34',
  '9.255.255.255', // just below 10/8
  '11.0.0.0', // just above
  '172.15.255.255', // just below 172.16/12
  '172.32.0.0', // just above
  '192.167.255.255',
  '192.169.0.0',
  '169.253.255.255',
  '169.255.0.0',
  '126.255.255.255',
  '128.0.0.0',
  '223.255.255.255', // just below multicast
  '100.63.255.255',
  '100.128.0.0',
  '2606:4700:4700::1111',
  '2001:4860:4860::8888',
  '::ffff:8.8.8.8', // IPv4-mapped public
  '64:ff9b::808:808', // NAT64 of 8.8.8.8
  'fbff:ffff::1', // just below fc00::/7
  'fec0::1', // above fe80::/10 (deprecated site-local, routed as global unicast now)
];

describe('isForbiddenAddress', () => {
  for (const [range, addresses] of Object.entries(FORBIDDEN)) {
    test(`refuses ${range}`, () => {
      for (const address of addresses) assert.equal(isForbiddenAddress(address), true, address);
    });
  }

  test('lets public addresses through, including the neighbours of each range', () => {
    for (const address of PUBLIC) assert.equal(isForbiddenAddress(address), false, address);
  });

  test('reads an IPv4-compatible address (::a.b.c.d) as that IPv4 address: ::2 is 0.0.0.2, in 0/8', () => {
    assert.equal(isForbiddenAddress('::2'), true);
    assert.equal(isForbiddenAddress('::8.8.8.8'), false);
  });
});

async function refusal(url: string, allowPrivate = false): Promise<string> {
  const error = await checkWebhookUrl(url, { allowPrivate }).then(
    () => assert.fail(`${url} was accepted`),
    (error: unknown) => error,
  );
  assert.ok(error instanceof WebhookUrlError, String(error));
  return error.message;
}

describe('checkWebhookUrl', () => {
  test('refuses what is not a URL, and schemes other than http and https', async () => {
    assert.equal(await refusal('not a url'), 'url: not a valid URL (expected https://host/path)');
    assert.equal(await refusal(''), 'url: not a valid URL (expected https://host/path)');
    for (const url of ['ftp://8.8.8.8/hook', 'file:///etc/passwd', 'javascript:alert(1)', 'gopher://8.8.8.8/', 'ws://8.8.8.8/']) {
      assert.equal(await refusal(url), 'url: must be http:// or https://', url);
    }
    // Scheme refusals do not depend on the guard being lifted.
    assert.equal(await refusal('file:///etc/passwd', true), 'url: must be http:// or https://');
  });

  test('refuses a user name or password in the URL', async () => {
    assert.match(await refusal('https://user:pass@8.8.8.8/hook'), /^url: must not contain a user name or password/);
    assert.match(await refusal('https://user@8.8.8.8/hook', true), /^url: must not contain a user name or password/);
  });

  test('refuses a numeric host in a forbidden range, naming it', async () => {
    assert.equal(
      await refusal('http://127.0.0.1:8080/hook'),
      'url: 127.0.0.1 is a private address; webhooks go to public addresses only',
    );
    assert.equal(
      await refusal('http://169.254.169.254/latest/meta-data/'),
      'url: 169.254.169.254 is a private address; webhooks go to public addresses only',
    );
    assert.equal(await refusal('http://[::1]/hook'), 'url: ::1 is a private address; webhooks go to public addresses only');
    // The URL's form of an IPv4-mapped address is hexadecimal; the answer names the IPv4 address it is judged by.
    assert.equal(
      await refusal('http://[::ffff:127.0.0.1]/'),
      'url: ::ffff:7f00:1 is a private address (IPv4 127.0.0.1); webhooks go to public addresses only',
    );
    assert.match(await refusal('https://[fd00:ec2::254]/'), /private address/);
    assert.match(await refusal('http://10.1.2.3/'), /private address/);
    assert.match(await refusal('http://0.0.0.0:4000/'), /private address/);
  });

  test('refuses the numeric forms a URL parser turns into a loopback address', async () => {
    // The WHATWG parser reads these as 127.0.0.1: the check sees what a connection would reach.
    for (const url of ['http://2130706433/', 'http://0x7f.1/', 'http://127.1/', 'http://017700000001/']) {
      assert.equal(await refusal(url), 'url: 127.0.0.1 is a private address; webhooks go to public addresses only', url);
    }
  });

  test('refuses a host name that resolves to a loopback address, naming the address', async () => {
    assert.match(
      await refusal('http://localhost:4000/hook'),
      /^url: localhost resolves to a private address \((127\.0\.0\.1|::1)\); webhooks go to public addresses only$/,
    );
  });

  test('accepts a public numeric address without looking anything up', async () => {
    await checkWebhookUrl('https://8.8.8.8/hook', { allowPrivate: false });
    await checkWebhookUrl('http://[2606:4700:4700::1111]:8443/x?y=1', { allowPrivate: false });
  });

  test('with allowPrivate, private and loopback hosts are accepted', async () => {
    await checkWebhookUrl('http://127.0.0.1:8080/hook', { allowPrivate: true });
    await checkWebhookUrl('http://localhost/hook', { allowPrivate: true });
    await checkWebhookUrl('http://[::1]/hook', { allowPrivate: true });
  });

  test('resolveWebhookTarget answers the addresses to connect to', async () => {
    const target = await resolveWebhookTarget('http://127.0.0.1:9/x', { allowPrivate: true });
    assert.equal(target.host, '127.0.0.1');
    assert.deepEqual(target.addresses, [{ address: '127.0.0.1', family: 4 }]);
    const v6 = await resolveWebhookTarget('http://[::1]:9/x', { allowPrivate: true });
    assert.deepEqual(v6.addresses, [{ address: '::1', family: 6 }]);
    const named = await resolveWebhookTarget('http://localhost:9/x', { allowPrivate: true });
    assert.ok(named.addresses.length >= 1);
    for (const { address } of named.addresses) assert.equal(isForbiddenAddress(address), true, address);
  });
});
