import type { Store } from './store.js';
import { openSqliteStore } from './sqlite/index.js';

export const DEFAULT_DATABASE_URL = 'sqlite:./data/content.db';

/** Opens the store a database URL names: `sqlite:<path>` (the embedded default) or `postgres://…`. */
export async function openStore(databaseUrl: string): Promise<Store> {
  if (databaseUrl.startsWith('sqlite:')) return openSqliteStore(databaseUrl.slice('sqlite:'.length) || ':memory:');
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new Error('PostgreSQL is not available in this build yet; use sqlite:<path>');
  }
  throw new Error(`Unsupported database URL "${redactUrl(databaseUrl)}": use sqlite:<path> or postgres://…`);
}

/** The URL with any password replaced, for messages and logs. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@');
}
