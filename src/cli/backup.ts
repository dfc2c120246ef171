// content-service backup --out FILE [--database URL]
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { backupSqlite } from '../store/copy/backup.js';
import { databaseUrl } from './options.js';
import { runCommand, UsageError } from './client-options.js';

interface BackupOptions {
  out: string;
  database?: string;
}

export function registerBackup(program: Command): void {
  program
    .command('backup')
    .description(
      'Write a consistent snapshot of a SQLite database to FILE while the server runs (SQLite online backup). ' +
        'For PostgreSQL it prints the pg_dump command to use instead.',
    )
    .requiredOption('--out <file>', 'the file to write (must not exist)')
    .option('--database <url>', 'database URL (default: DATABASE_URL, else sqlite:./data/content.db)')
    .action(async (options: BackupOptions) => runCommand(() => runBackup(options)));
}

async function runBackup(options: BackupOptions): Promise<number> {
  const url = databaseUrl(options.database);
  if (/^postgres(ql)?:\/\//.test(url)) {
    process.stderr.write(postgresAdvice(url, options.out));
    return 1;
  }
  if (!url.startsWith('sqlite:')) throw new UsageError(`--database: unsupported database URL: use sqlite:<path> or postgres://…`);
  const path = url.slice('sqlite:'.length);
  if (!path || path === ':memory:') throw new UsageError('--database: an in-memory SQLite database has nothing to back up');
  if (!existsSync(path)) throw new Error(`no SQLite database at ${path}`);
  if (existsSync(options.out)) throw new UsageError(`--out: ${options.out} exists already; give a new file name`);
  const started = Date.now();
  const pages = await backupSqlite(path, options.out);
  process.stdout.write(
    `Backed up ${path} to ${options.out} (${pages} pages) in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
  return 0;
}

function postgresAdvice(url: string, out: string): string {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema');
  parsed.searchParams.delete('schema');
  parsed.searchParams.delete('pool');
  parsed.password = parsed.password ? '***' : '';
  return [
    'backup: for PostgreSQL use pg_dump, which takes a consistent snapshot while the servers run:',
    `  pg_dump --format=custom ${schema ? `--schema=${schema} ` : ''}--file=${out} '${parsed.toString()}'`,
    'Restore into an empty database (servers stopped) with:',
    `  pg_restore --dbname='<postgres URL>' ${schema ? `--schema=${schema} ` : ''}${out}`,
    'See docs/deployment.md, "Backup and restore".',
    '',
  ].join('\n');
}
