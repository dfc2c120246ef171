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
}

export const DEFAULTS = {
  port: 4000,
  host: '127.0.0.1',
  writeBudget: 5000,
  bodyLimitBytes: 10 * 1024 * 1024,
  corsOrigins: '*' as const,
  logLevel: 'info',
  introspection: true,
};
