// content-service copy --from URL --to URL [--resume]
import type cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { CopyRefusal, type CopyEvent, type CopyResult } from '../store/copy/copy-store.js';
import { copyStoreInWorker } from '../store/copy/copy-thread.js';
import { progressBar, runCommand, UsageError } from './client-options.js';

interface CopyCliOptions {
  from: string;
  to: string;
  resume?: boolean;
  quiet?: boolean;
  fromStorage?: string;
  toStorage?: string;
}

export function registerCopy(program: Command): void {
  program
    .command('copy')
    .description(
      'Copy everything in one store into another, empty one (SQLite to PostgreSQL or back): organisations, ' +
        'workspaces, users, password and token hashes, sessions, models, records (same ids and timestamps), webhooks ' +
        'and their secrets; not the webhook delivery history. Verifies counts and a checksum per model at the end. ' +
        'Run it while no server writes to the source (stop the server, or keep it read-only).',
    )
    .requiredOption('--from <url>', 'the database to copy: sqlite:<path> or postgres://…')
    .requiredOption('--to <url>', 'the database to copy into (migrated first; must be empty): sqlite:<path> or postgres://…')
    .option('--resume', 'continue a copy into --to that stopped half way')
    .option('--from-storage <url>', "the source's asset storage (file:<dir> or s3://…): its assets' bytes are copied too")
    .option('--to-storage <url>', "the storage to copy the assets' bytes into (with --from-storage)")
    .option('--quiet', 'no progress output')
    .action(async (options: CopyCliOptions) => runCommand(() => runCopy(options)));
}

async function runCopy(options: CopyCliOptions): Promise<number> {
  if ((options.fromStorage === undefined) !== (options.toStorage === undefined)) {
    throw new UsageError("--from-storage and --to-storage go together: the storages to copy the assets' bytes between");
  }
  const progress = new CopyProgress(options.quiet === true);
  let result: CopyResult;
  try {
    // In a worker thread with a small young generation: the process stays small over any number of records.
    result = await copyStoreInWorker({
      from: options.from,
      to: options.to,
      resume: options.resume === true,
      onEvent: (event) => progress.on(event),
    });
  } catch (error) {
    progress.stop();
    if (error instanceof CopyRefusal) throw new UsageError(error.message);
    throw error;
  }
  progress.stop();
  process.stdout.write(formatResult(result));
  if (!result.ok) return 1;
  return options.fromStorage ? copyAssetBytes(options) : 0;
}

/** After the rows: the bytes of every asset, from one storage into the other. */
async function copyAssetBytes(options: CopyCliOptions): Promise<number> {
  const [{ openStore }, { openStorage }, { copyContents }] = await Promise.all([
    import('../store/open-store.js'),
    import('../media/open-storage.js'),
    import('../media/copy-contents.js'),
  ]);
  const store = await openStore(options.to);
  const from = await openStorage(options.fromStorage!);
  const to = await openStorage(options.toStorage!);
  try {
    const copy = await copyContents(store.assets, from, to);
    process.stdout.write(`Asset files: ${copy.copied} copied, ${copy.present} already there, ${copy.missing.length} missing.\n`);
    for (const content of copy.missing.slice(0, 20)) {
      process.stdout.write(`  missing in ${from.description}: ${content.workspaceId}/${content.sha256}\n`);
    }
    return copy.missing.length === 0 ? 0 : 1;
  } finally {
    await Promise.all([store.close(), from.close(), to.close()]);
  }
}

function formatResult(result: CopyResult): string {
  const lines: string[] = [];
  const width = Math.max(...result.tables.map((check) => check.table.length));
  for (const check of result.tables) {
    const mark = check.source === check.target ? 'ok' : 'MISMATCH';
    lines.push(
      `${check.table.padEnd(width)}  ${String(check.source).padStart(9)} → ${String(check.target).padStart(9)}  ${mark}`,
    );
  }
  for (const check of result.models) {
    const mark = check.source === check.target ? 'ok' : `MISMATCH (target ${check.target.slice(0, 16)})`;
    lines.push(`model ${check.modelId}  ${check.records} records  sha256 ${check.source.slice(0, 16)}  ${mark}`);
  }
  const { rowsMs, indexesMs, verifyMs } = result.phases;
  lines.push(
    `Rows ${(rowsMs / 1000).toFixed(1)} s; indexes ${(indexesMs / 1000).toFixed(1)} s; ` +
      `the target's checksums ${(verifyMs / 1000).toFixed(1)} s (beside the indexes).`,
  );
  const seconds = result.elapsedMs / 1000;
  const rate = seconds > 0 ? Math.round(result.copiedRows / seconds) : result.copiedRows;
  lines.push(
    result.ok
      ? `Copied ${result.copiedRows} rows in ${seconds.toFixed(1)} s (${rate} rows/s); counts and checksums match.`
      : 'The copy does NOT match its source (see MISMATCH above); the target keeps its copy marker: run again with --resume after finding the cause, or start over into an empty database.',
  );
  return lines.join('\n') + '\n';
}

/** A bar on a terminal; otherwise one line per table and phase. */
class CopyProgress {
  private readonly bar: cliProgress.SingleBar | undefined;
  private readonly lines: boolean;
  private table = '';

  constructor(quiet: boolean) {
    this.lines = !quiet && !process.stderr.isTTY;
    if (quiet || !process.stderr.isTTY) return;
    this.bar = progressBar(process.stderr, 'copy [{bar}] {percentage}% | {value}/{total} rows | {table} | ETA {eta_formatted}');
  }

  on(event: CopyEvent): void {
    switch (event.phase) {
      case 'start': {
        const total = [...event.totals.values()].reduce((sum, count) => sum + count, 0);
        const resumed = [...event.resumed.values()].reduce((sum, count) => sum + count, 0);
        this.bar?.start(total, resumed, { table: '' });
        if (this.lines && resumed > 0) this.line(`resuming, ${resumed} of ${total} rows already in the target\n`);
        return;
      }
      case 'table':
        this.table = event.table;
        this.bar?.update({ table: event.table });
        if (this.lines)
          this.line(`${event.table}: ${event.total} rows${event.done > 0 ? ` (${event.done} already there)` : ''}\n`);
        return;
      case 'rows':
        this.bar?.increment(event.rows, { table: this.table });
        return;
      case 'indexes':
        this.bar?.update({ table: 'field indexes' });
        if (this.lines) this.line('building field indexes\n');
        return;
      case 'verify':
        this.bar?.update({ table: 'verifying' });
        if (this.lines) this.line('verifying counts and checksums\n');
        return;
    }
  }

  private readonly started = Date.now();

  private line(text: string): void {
    process.stderr.write(`copy ${((Date.now() - this.started) / 1000).toFixed(1)} s: ${text}`);
  }

  stop(): void {
    this.bar?.stop();
  }
}
