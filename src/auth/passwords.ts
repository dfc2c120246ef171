import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Password hashes in the PHC string format: `$scrypt$ln=15,r=8,p=3$<salt>$<hash>` (salt and hash in base64
 * without padding). The parameters travel with the hash, so they can be raised later without breaking
 * stored passwords. ln=15, r=8, p=3 (32 MiB, about 0.1-0.3 s) is one of OWASP's recommended scrypt settings.
 * The cost (ln, log2 of scrypt's N) of new hashes can be set (PASSWORD_HASH_COST, 10 to 20): a hash keeps the cost
 * it was made with, so a change applies to passwords set from then on.
 */
export const DEFAULT_PASSWORD_HASH_COST = 15;
export const MIN_PASSWORD_HASH_COST = 10;
export const MAX_PASSWORD_HASH_COST = 20;
const BLOCK_SIZE = 8;
const PARALLELISM = 3;
const SALT_BYTES = 16;
const HASH_BYTES = 32;

export const MIN_PASSWORD_LENGTH = 8;
/** Long enough for any passphrase; a bound so a huge body is not fed to the hash. */
export const MAX_PASSWORD_LENGTH = 1024;

/** Why a new password is refused, naming the field; null when it is acceptable. */
export function passwordProblem(password: string): string | null {
  if ([...password].length < MIN_PASSWORD_LENGTH) return `password: must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH) return `password: must be at most ${MAX_PASSWORD_LENGTH} characters`;
  return null;
}

function derive(password: string, salt: Buffer, parameters: { ln: number; r: number; p: number }): Promise<Buffer> {
  const N = 2 ** parameters.ln;
  const options: ScryptOptions = { N, r: parameters.r, p: parameters.p, maxmem: 256 * N * parameters.r };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, HASH_BYTES, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** The scrypt parameters of a new hash at `cost` (ln): the block size and parallelism are fixed. */
function parametersAt(cost: number): { ln: number; r: number; p: number } {
  return { ln: cost, r: BLOCK_SIZE, p: PARALLELISM };
}

export async function hashPassword(password: string, cost: number = DEFAULT_PASSWORD_HASH_COST): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const parameters = parametersAt(cost);
  const hash = await derive(password, salt, parameters);
  const { ln, r, p } = parameters;
  return `$scrypt$ln=${ln},r=${r},p=${p}$${salt.toString('base64').replace(/=+$/, '')}$${hash.toString('base64').replace(/=+$/, '')}`;
}

interface ParsedHash {
  parameters: { ln: number; r: number; p: number };
  salt: Buffer;
  hash: Buffer;
}

function parseHash(stored: string): ParsedHash | null {
  const match = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/.exec(stored);
  if (!match) return null;
  const parameters = { ln: Number(match[1]), r: Number(match[2]), p: Number(match[3]) };
  // Bounds, so that a damaged row cannot make one sign-in take gigabytes or minutes.
  if (
    parameters.ln < MIN_PASSWORD_HASH_COST ||
    parameters.ln > MAX_PASSWORD_HASH_COST ||
    parameters.r < 1 ||
    parameters.r > 32 ||
    parameters.p < 1 ||
    parameters.p > 16
  )
    return null;
  const hash = Buffer.from(match[5]!, 'base64');
  if (hash.length < 16) return null;
  return { parameters, salt: Buffer.from(match[4]!, 'base64'), hash };
}

/** Checks a password against a stored hash, comparing in constant time. A malformed hash never matches. */
export async function verifyPassword(
  password: string,
  stored: string,
  cost: number = DEFAULT_PASSWORD_HASH_COST,
): Promise<boolean> {
  const parsed = parseHash(stored);
  if (!parsed || password.length > MAX_PASSWORD_LENGTH) {
    // Still spend the time of a real check, so the answer's timing tells nothing.
    await derive(password.slice(0, MAX_PASSWORD_LENGTH), randomBytes(SALT_BYTES), parametersAt(cost));
    return false;
  }
  const candidate = await derive(password, parsed.salt, parsed.parameters);
  return candidate.length === parsed.hash.length && timingSafeEqual(candidate, parsed.hash);
}

const dummies = new Map<number, Promise<string>>();

/**
 * A hash of a random password nobody knows, at the given cost: a sign-in for an unknown email (or a user without a
 * password) is checked against it, so it takes as long as one for a real user whose password was set at that cost.
 */
export function dummyPasswordHash(cost: number = DEFAULT_PASSWORD_HASH_COST): Promise<string> {
  let dummy = dummies.get(cost);
  if (dummy === undefined) {
    dummy = hashPassword(randomBytes(32).toString('base64url'), cost);
    dummies.set(cost, dummy);
  }
  return dummy;
}
