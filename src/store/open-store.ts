import type { Store } from './store.js';
import { DEFAULT_HISTORY_KEEP } from '../domain/revisions.js';

export const DEFAULT_DATABASE_URL = 'sqlite:./data/content.db';

/**
 * Opens the store a database URL names: `sqlite:<path>` (the embedded default) or `postgres://…` /
 * `postgresql://…` (with optional `?schema=<name>` and `?pool=<N>`).
 */
export async function openStore(
  databaseUrl: string,
  {
    keepVersions = false,
    onSoleChange,
    historyKeep = DEFAULT_HISTORY_KEEP,
  }: {
    /** A server on PostgreSQL: keep the content versions it reads while it is the only process (sole-server.ts). */
    keepVersions?: boolean;
    onSoleChange?: (sole: boolean) => void;
    /** Revisions kept per record (--history-keep; 0: none). */
    historyKeep?: number;
  } = {},
): Promise<Store> {
  // Each driver is loaded only when its database is used: a command on SQLite never loads pg, nor the reverse.
  if (databaseUrl.startsWith('sqlite:')) {
    const { openSqliteStore } = await import('./sqlite/index.js');
    return openSqliteStore(databaseUrl.slice('sqlite:'.length) || ':memory:', { historyKeep });
  }
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
    const { openPostgresStore } = await import('./postgres/index.js');
    return openPostgresStore(databaseUrl, { keepVersions, onSoleChange, historyKeep });
  }
  throw new Error(`Unsupported database URL "${redactUrl(databaseUrl)}": use sqlite:<path> or postgres://…`);
}

/** The URL with any password replaced, for messages and logs. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@');
}
