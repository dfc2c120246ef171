// The sync loader: rows loaded by a key field, idempotently (create through import, patch what changed, leave
// the rest alone, prune on request).
import { mergeDiff, stripNulls } from './diff.js';
import { ContentServiceError, fieldOfMessage } from './errors.js';
import { importBatcher, numberedItems, rejection, resolveModel, rowData } from './load-steps.js';
import { newSummary, progressReporter, type ProgressReporter, type RunningSummary } from './load-summary.js';
import type { Items, Loader, LoadSummary, SyncOptions } from './load-types.js';
import { Pool } from './pool.js';
import { deleteWithRetry, patchWithRetry } from './retried-writes.js';
import { keyOf, readKeyIndex, type KeyIndex } from './sync-index.js';
import type { ModelDefinition } from './types.js';

/** Failures after which nothing more is sent. */
const STOPPING_CODES = ['UNAUTHENTICATED', 'FORBIDDEN', 'ABORTED', 'RATE_LIMIT_WAIT_EXCEEDED'];

export async function sync<T>(
  loader: Loader,
  model: string | Pick<ModelDefinition, 'id'>,
  items: Items<T>,
  options: SyncOptions<T>,
): Promise<LoadSummary<T>> {
  const { client } = loader;
  const definition = await resolveModel(client, model, options.signal);
  const key = options.key;
  if (!definition.fields.some((field) => field.key === key)) {
    throw new ContentServiceError(`key: the model "${definition.slug}" has no field "${key}"`, {
      code: 'BAD_USER_INPUT',
      field: 'key',
    });
  }
  const summary = newSummary<T>(options.dryRun ?? false);
  const report = progressReporter(summary, options);

  // 1. What exists, by key. The first record (in creation order) of a key is the one kept up to date.
  summary.progress.phase = 'reading';
  const index = await readKeyIndex(client, definition.id, key, options.signal, () => {
    summary.progress.existing += 1;
    report.tick();
  });
  summary.duplicateKeysInStore = index.duplicates.length;
  summary.progress.phase = 'writing';

  // 2. Each input row: create (through import), patch or leave alone.
  /** Key → position (input row, or what options.position gives) of the input row that created it. */
  const created = new Map<string, number>();
  const positionName = options.position?.name ?? 'input row';
  const positionOf = options.position?.of ?? ((_item: T, row: number) => row);
  const pool = new Pool(options.concurrency ?? 4);
  const writes: Writes<T> = { pool, summary, report, dryRun: options.dryRun };
  const batcher = importBatcher<T>(loader, definition.id, options, summary, report, async (rows) => {
    // No answer to an import call: read again which of its keys are stored now, send the others again.
    const present = new Set<string>();
    for await (const record of client.listAll(definition.id, options.signal ? { signal: options.signal } : {})) {
      const k = keyOf(record.data[key]);
      if (k !== undefined) present.add(k);
    }
    const resend = rows.filter((row) => !present.has(keyOf(row.data[key])!));
    return { resend, landed: rows.length - resend.length };
  });
  for await (const { row: current, item } of numberedItems(items, options.signal, summary, batcher)) {
    const fail = (code: string, message: string) => {
      batcher.fail([{ row: current, item, data: {} }], code, message);
      report.tick();
    };
    const data = rowData(current, item, options, batcher, report);
    if (data === undefined) continue;
    if (batcher.stopped) {
      fail(batcher.stopped.code, `not sent: the run stopped after an earlier error (${batcher.stopped.message})`);
      continue;
    }
    const k = keyOf(data[key]);
    if (k === undefined) {
      fail('BAD_USER_INPUT', `${key}: missing or not a string, number or boolean (it is the key of this load)`);
      continue;
    }
    const existing = index.byKey.get(k);
    const firstRow = existing?.seenAt ?? created.get(k);
    if (firstRow !== undefined) {
      fail(
        'BAD_USER_INPUT',
        `${key}: the key ${JSON.stringify(data[key])} is also on ${positionName} ${firstRow}; each key may appear once`,
      );
      continue;
    }
    if (!existing) {
      created.set(k, positionOf(item, current));
      if (options.dryRun) summary.created += 1;
      else await batcher.push({ row: current, item, data: stripNulls(data) });
      report.tick();
      continue;
    }
    existing.seenAt = positionOf(item, current);
    const patch = mergeDiff(existing.data, data);
    if (patch === undefined) {
      summary.unchanged += 1;
      report.tick();
      continue;
    }
    await countedWrite(
      writes,
      'updated',
      () => patchWithRetry(client, existing.id, patch, options.signal),
      (error) => {
        const { code, message } = rejection(error);
        batcher.fail([{ row: current, item, data }], code, message);
        if (error instanceof ContentServiceError && STOPPING_CODES.includes(error.code)) {
          batcher.stopped ??= error;
        }
      },
    );
  }
  await batcher.flush();
  await pool.drain();
  if (!options.dryRun) summary.created = batcher.imported;

  if (options.prune && !batcher.stopped) await prune(loader, index, writes, options);
  return report.finish(batcher.stopped);
}

/** Step 3: deletes the records whose key is not in the input, records without a key, extra records sharing a key. */
async function prune<T>(loader: Loader, index: KeyIndex, writes: Writes<T>, options: SyncOptions<T>): Promise<void> {
  const { summary } = writes;
  summary.progress.phase = 'pruning';
  const doomed = [...index.byKey.values()].filter((entry) => entry.seenAt === undefined).map((entry) => entry.id);
  doomed.push(...index.duplicates, ...index.keyless);
  for (const id of doomed) {
    await countedWrite(
      writes,
      'deleted',
      () => deleteWithRetry(loader.client, id, options.signal),
      (error) => {
        const { code, message } = rejection(error);
        summary.failed += 1;
        const failure = {
          row: 0,
          item: { id } as unknown as T,
          message: `delete ${id}: ${message}`,
          code,
          field: fieldOfMessage(message),
        };
        if (options.onRowError) options.onRowError(failure);
        else summary.errors.push(failure);
      },
    );
  }
  await writes.pool.drain();
}

/** Where a sync's patches and deletes go, and what counts them. */
interface Writes<T> {
  pool: Pool;
  summary: RunningSummary<T>;
  report: ProgressReporter<T>;
  dryRun: boolean | undefined;
}

/**
 * One patch or delete: in a dry run only counted; otherwise sent in the pool and counted once it lands, `onFailure`
 * told when it does not. Progress is reported either way.
 */
async function countedWrite<T>(
  writes: Writes<T>,
  outcome: 'updated' | 'deleted',
  send: () => Promise<void>,
  onFailure: (error: unknown) => void,
): Promise<void> {
  const { summary, report } = writes;
  if (writes.dryRun) {
    summary[outcome] += 1;
    report.tick();
    return;
  }
  await writes.pool.run(async () => {
    try {
      await send();
      summary[outcome] += 1;
    } catch (error) {
      onFailure(error);
    }
    report.tick();
  });
}
