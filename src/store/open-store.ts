import type { Store } from './store.js';
import { openSqliteStore } from './sqlite/index.js';
import { openPostgresStore } from './postgres/index.js';

export const DEFAULT_DATABASE_URL = 'sqlite:./data/content.db';

/**
 * Opens the store a database URL names: `sqlite:<path>` (the embedded default) or `postgres://…` /
 * `postgresql://…` (with optional `?schema=<name>` and `?pool=<N>`).
 */
export async function openStore(databaseUrl: string): Promise<Store> {
  if (databaseUrl.startsWith('sqlite:')) return openSqliteStore(databaseUrl.slice('sqlite:'.length) || ':memory:');
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) return openPostgresStore(databaseUrl);
  throw new Error(`Unsupported database URL "${redactUrl(databaseUrl)}": use sqlite:<path> or postgres://…`);
}

/** The URL with any password replaced, for messages and logs. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@');
}
