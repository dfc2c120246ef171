import { DEFAULT_PASSWORD_HASH_COST, MAX_PASSWORD_HASH_COST, MIN_PASSWORD_HASH_COST } from '../auth/passwords.js';
import { SLUG_PATTERN } from '../shared/model-limits.js';
import { InvalidArgumentError } from 'commander';
import { isRole, ROLES, type Role } from '../domain/roles.js';
import { DEFAULT_DATABASE_URL } from '../store/open-store.js';

/** `--database` wins over DATABASE_URL, which wins over the embedded default. */
export function databaseUrl(flag: string | undefined): string {
  return flag ?? process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
}

export function parsePositiveInt(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number <= 0) throw new InvalidArgumentError('must be a positive integer');
  return number;
}

/** A duration in whole seconds, 0 to one year (a longer cache lifetime is a mistake, not a setting). */
export function parseSeconds(value: string): number {
  const number = /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(number) || number > MAX_SECONDS) {
    throw new InvalidArgumentError(`must be a whole number of seconds from 0 to ${MAX_SECONDS}`);
  }
  return number;
}

const MAX_SECONDS = 365 * 24 * 60 * 60;

export function parsePort(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0 || number > 65535) throw new InvalidArgumentError('must be a port number');
  return number;
}

export function parseRole(value: string): Role {
  if (!isRole(value)) throw new InvalidArgumentError(`must be one of ${ROLES.join(', ')}`);
  return value;
}

export function parseSlug(value: string): string {
  if (!SLUG_PATTERN.test(value)) {
    throw new InvalidArgumentError('must be 1-64 characters of a-z, 0-9, "-" or "_"');
  }
  return value;
}

export function parseEmail(value: string): string {
  if (!/^[^\s@]+@[^\s@]+$/.test(value)) throw new InvalidArgumentError('must be an email address');
  return value.toLowerCase();
}

/** PASSWORD_HASH_COST: the scrypt cost (log2 of N) of the password hashes a command makes; 15 when unset. */
export function envPasswordHashCost(): number {
  const value = process.env.PASSWORD_HASH_COST;
  if (value === undefined || value === '') return DEFAULT_PASSWORD_HASH_COST;
  const cost = /^\d{1,2}$/.test(value) ? Number(value) : Number.NaN;
  if (!(cost >= MIN_PASSWORD_HASH_COST && cost <= MAX_PASSWORD_HASH_COST))
    throw new InvalidArgumentError(
      `PASSWORD_HASH_COST: must be a whole number from ${MIN_PASSWORD_HASH_COST} to ${MAX_PASSWORD_HASH_COST}, got "${value}"`,
    );
  return cost;
}

/**
 * An environment variable read by `parse` (an option's parser); undefined when unset or empty. A refusal names the
 * variable and the value: `NAME: <the parser's reason>, got "value"`.
 */
export function envParsed<T>(name: string, parse: (value: string) => T): T | undefined {
  const value = process.env[name];
  if (value === undefined || value === '') return undefined;
  try {
    return parse(value);
  } catch (error) {
    throw new InvalidArgumentError(`${name}: ${(error as Error).message}, got "${value}"`);
  }
}

export function envInt(name: string): number | undefined {
  return envParsed(name, parsePositiveInt);
}
