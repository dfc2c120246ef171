import { createHash } from 'node:crypto';
import { isIPv6 } from 'node:net';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { memoryLimiters, retryAfterSeconds } from '../budget/write-budget.js';
import type { Limiter, LimiterFactory } from '../store/store.js';

export interface SignInLimits {
  /** Attempts per minute from one client address, whatever the email (stops one password tried on many emails). */
  attemptsPerMinutePerAddress: number;
  /** Attempts per minute at one email, whatever the address (stops many addresses guessing one password). */
  attemptsPerMinutePerEmail: number;
}

const WINDOW_SECONDS = 60;

/**
 * The two sign-in limits, counted in the store the write budget uses (Redis, PostgreSQL or memory), so that
 * several server processes share them. A refused attempt is not counted; a successful one is given back, so the
 * limits count failures and people behind one address who know their passwords are not held up by each other.
 */
export class SignInThrottle {
  private readonly byAddress: Limiter;
  private readonly byEmail: Limiter;

  constructor(limits: SignInLimits, makeLimiter: LimiterFactory = memoryLimiters) {
    this.byAddress = makeLimiter(limits.attemptsPerMinutePerAddress, WINDOW_SECONDS, 'sign-in-address');
    this.byEmail = makeLimiter(limits.attemptsPerMinutePerEmail, WINDOW_SECONDS, 'sign-in-email');
  }

  /** Counts an attempt; answers the seconds to wait (1 to 60) when a limit is used up, and then counts nothing. */
  async charge(address: string, email: string): Promise<number | null> {
    const keys = this.keys(address, email);
    const charged: [Limiter, string][] = [];
    for (const [limiter, key] of keys) {
      try {
        await limiter.consume(key);
        charged.push([limiter, key]);
      } catch (error) {
        if (!(error instanceof RateLimiterRes)) throw error;
        await Promise.all([...charged, [limiter, key] as const].map(([spent, spentKey]) => spent.reward(spentKey)));
        return retryAfterSeconds(error.msBeforeNext);
      }
    }
    return null;
  }

  /** Gives back a charged attempt: it succeeded, or it was never checked. */
  async refund(address: string, email: string): Promise<void> {
    await Promise.all(this.keys(address, email).map(([limiter, key]) => limiter.reward(key)));
  }

  private keys(address: string, email: string): [Limiter, string][] {
    // The email is hashed: the key stays short (the PostgreSQL key column is 255 characters) and the counters
    // do not keep a list of the emails people tried.
    return [
      [this.byAddress, clientAddressKey(address)],
      [this.byEmail, createHash('sha256').update(email).digest('hex')],
    ];
  }
}

/**
 * The client address the limit is kept for: an IPv4 address as it is (also when written IPv4-mapped), an IPv6
 * address by its /64 network, since one subscriber is usually given a whole /64.
 */
export function clientAddressKey(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped) return mapped[1]!;
  const address = ip.split('%')[0]!;
  if (!isIPv6(address)) return ip;
  const [head = '', tail] = address.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  // An embedded IPv4 address at the end stands for two groups.
  const tailLength = tailGroups.length + (tailGroups.at(-1)?.includes('.') ? 1 : 0);
  const zeros = tail === undefined ? [] : Array<string>(8 - headGroups.length - tailLength).fill('0');
  const groups = [...headGroups, ...zeros, ...tailGroups];
  return `${groups
    .slice(0, 4)
    .map((group) => parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}
