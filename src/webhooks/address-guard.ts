// The SSRF guard: a webhook goes to a public address only. A URL whose host resolves to a loopback, private,
// link-local (cloud metadata), multicast or unspecified address is refused, at create and again at every send
// (DNS can change between the two); send.ts then connects to the very address checked here.
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** A webhook URL the service will not send to; the message is for the user and names the field. */
export class WebhookUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookUrlError';
  }
}

const FORBIDDEN_V4: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // "this network", 0.0.0.0 among it (connects to the host itself)
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT: private to the provider's network
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, with the cloud metadata service at 169.254.169.254
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the broadcast address 255.255.255.255
];
const FORBIDDEN_V6: ReadonlyArray<readonly [string, number]> = [
  ['::', 128], // unspecified
  ['::1', 128],
  ['fc00::', 7], // unique local (fd00:ec2::254 is a cloud metadata address)
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
];

const forbidden = new BlockList();
for (const [network, prefix] of FORBIDDEN_V4) forbidden.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of FORBIDDEN_V6) forbidden.addSubnet(network, prefix, 'ipv6');

/** The 16 bytes of an IPv6 address (already known valid by isIP), or null if it cannot be read. */
function ipv6Bytes(ip: string): number[] | null {
  let text = ip;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const quad = dotted[1]!.split('.').map(Number);
    const high = (quad[0]! << 8) | quad[1]!;
    const low = (quad[2]! << 8) | quad[3]!;
    text = `${text.slice(0, dotted.index)}${high.toString(16)}:${low.toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groupsOf = (part: string | undefined): string[] => (part ? part.split(':') : []);
  const head = groupsOf(halves[0]);
  const tail = groupsOf(halves[1]);
  const missing = 8 - head.length - tail.length;
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return null;
  const groups = [...head, ...Array<string>(missing).fill('0'), ...tail];
  return groups.flatMap((group) => {
    const value = parseInt(group, 16);
    return [value >> 8, value & 0xff];
  });
}

/**
 * The IPv4 address an IPv6 address carries, where it reaches that IPv4 host: IPv4-mapped (::ffff:a.b.c.d),
 * IPv4-compatible (::a.b.c.d) and the NAT64 prefix (64:ff9b::a.b.c.d). Otherwise null.
 */
function embeddedIPv4(bytes: readonly number[]): string | null {
  const prefix = bytes.slice(0, 12);
  const zeros = (from: number, to: number) => prefix.slice(from, to).every((byte) => byte === 0);
  const mapped = zeros(0, 10) && prefix[10] === 0xff && prefix[11] === 0xff;
  const compatible = zeros(0, 12);
  const nat64 = prefix[0] === 0x00 && prefix[1] === 0x64 && prefix[2] === 0xff && prefix[3] === 0x9b && zeros(4, 12);
  if (!mapped && !compatible && !nat64) return null;
  return bytes.slice(12).join('.');
}

/** Whether a webhook may not be sent to this IP address. Anything that is not an IP address is forbidden. */
export function isForbiddenAddress(ip: string): boolean {
  const address = ip.replace(/%.*$/, ''); // an IPv6 zone (fe80::1%eth0) names an interface, not an address
  const version = isIP(address);
  if (version === 4) return forbidden.check(address, 'ipv4');
  if (version !== 6) return true;
  if (forbidden.check(address, 'ipv6')) return true;
  const bytes = ipv6Bytes(address);
  if (bytes === null) return true;
  const ipv4 = embeddedIPv4(bytes);
  // ::/96 holds :: and ::1 (checked above); its other addresses are the deprecated IPv4-compatible form.
  return ipv4 !== null && forbidden.check(ipv4, 'ipv4');
}

/** The IPv4 address an IPv6 address carries (what isForbiddenAddress judges it by); null for others, :: and ::1. */
function carriedIPv4(ip: string): string | null {
  const bytes = isIP(ip) === 6 ? ipv6Bytes(ip) : null;
  const ipv4 = bytes === null ? null : embeddedIPv4(bytes);
  return ipv4 === '0.0.0.0' || ipv4 === '0.0.0.1' ? null : ipv4;
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** A checked webhook URL: where to connect (every address the host resolved to, all of them allowed). */
export interface WebhookTarget {
  url: URL;
  /** The host name as the URL has it (without the brackets of an IPv6 literal). */
  host: string;
  addresses: ResolvedAddress[];
}

/** The URL read and its scheme checked, or a WebhookUrlError. */
export function parseWebhookUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new WebhookUrlError('url: not a valid URL (expected https://host/path)');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new WebhookUrlError('url: must be http:// or https://');
  }
  if (parsed.username !== '' || parsed.password !== '') {
    // The URL is shown in the admin application and kept with every delivery; the signature authenticates us.
    throw new WebhookUrlError('url: must not contain a user name or password (deliveries are signed instead)');
  }
  if (parsed.hostname === '') throw new WebhookUrlError('url: has no host');
  return parsed;
}

function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

async function resolveHost(host: string): Promise<ResolvedAddress[]> {
  const literal = isIP(host);
  if (literal !== 0) return [{ address: host, family: literal as 4 | 6 }];
  try {
    const found = await lookup(host, { all: true, verbatim: true });
    return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'lookup failed';
    throw new WebhookUrlError(`url: ${host} could not be resolved (${code})`);
  }
}

/**
 * Reads the URL, resolves its host once and checks every address it resolves to: one forbidden address refuses
 * the URL (a host answering with both a public and a private address could be steered to the private one).
 * With `allowPrivate` (development and tests) the addresses are resolved but not checked.
 */
export async function resolveWebhookTarget(url: string, options: { allowPrivate: boolean }): Promise<WebhookTarget> {
  const parsed = parseWebhookUrl(url);
  const host = hostOf(parsed);
  const addresses = await resolveHost(host);
  if (addresses.length === 0) throw new WebhookUrlError(`url: ${host} could not be resolved (no address)`);
  if (!options.allowPrivate) {
    const refused = addresses.find(({ address }) => isForbiddenAddress(address));
    if (refused) {
      const ipv4 = carriedIPv4(refused.address);
      const shown = ipv4 === null ? refused.address : `${refused.address}, IPv4 ${ipv4}`;
      const what =
        refused.address === host
          ? `${host} is a private address${ipv4 === null ? '' : ` (IPv4 ${ipv4})`}`
          : `${host} resolves to a private address (${shown})`;
      throw new WebhookUrlError(`url: ${what}; webhooks go to public addresses only`);
    }
  }
  return { url: parsed, host, addresses };
}

/**
 * Checks a webhook URL as create and update do: a URL the service would send to, or a WebhookUrlError whose message
 * names the problem. With `allowPrivate` the host is not resolved (nothing would be refused).
 */
export async function checkWebhookUrl(url: string, options: { allowPrivate: boolean }): Promise<void> {
  if (options.allowPrivate) {
    parseWebhookUrl(url);
    return;
  }
  await resolveWebhookTarget(url, options);
}
