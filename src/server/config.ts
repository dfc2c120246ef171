export interface ServerConfig {
  port: number;
  host: string;
  databaseUrl: string;
  writeBudget: number;
  bodyLimitBytes: number;
  /** Origins allowed to read the delivery route from a browser; `*` for any. */
  corsOrigins: string[] | '*';
  logLevel: string;
  /** Whether `__schema` / `__type` queries are answered (env INTROSPECTION=on|off). */
  introspection: boolean;
  /** Sign-in limits and the bound on password hashes at once (env SIGN_IN_ATTEMPTS_PER_MINUTE_PER_*, PASSWORD_HASH_*). */
  signIn: SignInConfig;
}

export interface SignInConfig {
  /** Failed sign-in attempts per minute from one client address, whatever the email. */
  attemptsPerMinutePerAddress: number;
  /** Failed sign-in attempts per minute at one email, whatever the address. */
  attemptsPerMinutePerEmail: number;
  /** Password hashes checked at once in one process. */
  passwordHashConcurrency: number;
  /** Sign-ins that may wait for a free hashing slot; beyond them a sign-in is refused at once with 429. */
  passwordHashQueue: number;
}

export const DEFAULTS = {
  port: 4000,
  host: '127.0.0.1',
  writeBudget: 5000,
  bodyLimitBytes: 10 * 1024 * 1024,
  corsOrigins: '*' as const,
  logLevel: 'info',
  introspection: true,
  signIn: { attemptsPerMinutePerAddress: 30, attemptsPerMinutePerEmail: 10, passwordHashConcurrency: 2, passwordHashQueue: 8 },
};
