// content-service copy: everything in one store into another (empty) one, table by table in key order, then
// field indexes, then a check that both hold the same. Written so that a stop at any moment leaves a target that
// `resume` continues: each batch is one transaction, and a table resumes after the target's last key.
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { parsePostgresUrl } from '../postgres/index.js';
import { ChecksumAccumulator, checksumsOf, TargetChunks, type Checksums } from './checksum.js';
import { openPostgresSide, describePostgres } from './postgres-side.js';
import type { ChunkHasher, CopySide, ModelIndexSource, Row } from './side.js';
import { openSqliteSide } from './sqlite-side.js';
import { loadTable } from './table-load.js';
import { COPIED_TABLES, NOT_COPIED } from './tables.js';

/** A mistake in what was asked (the command exits 2); any other error is a failure of the work. */
export class CopyRefusal extends Error {
  override readonly name = 'CopyRefusal';
}

export type CopyEvent =
  | { phase: 'start'; totals: ReadonlyMap<string, number>; resumed: ReadonlyMap<string, number> }
  | { phase: 'table'; table: string; done: number; total: number }
  | { phase: 'rows'; table: string; rows: number }
  | { phase: 'indexes' }
  | { phase: 'verify' };

export interface CopyOptions {
  from: string;
  to: string;
  resume: boolean;
  /** Rows read and written at once. */
  batchRows?: number;
  onEvent?: (event: CopyEvent) => void;
}

export interface TableCheck {
  table: string;
  source: number;
  target: number;
}

export interface ModelCheck {
  modelId: string;
  records: number;
  source: string;
  target: string;
}

/** Where the time went: the rows of all tables; the indexes; the target's checksums (run beside the indexes). */
export interface PhaseTimes {
  rowsMs: number;
  indexesMs: number;
  verifyMs: number;
}

export interface CopyResult {
  copiedRows: number;
  phases: PhaseTimes;
  tables: TableCheck[];
  models: ModelCheck[];
  ok: boolean;
  elapsedMs: number;
}

// Small enough to keep the heap small (the process's peak RSS grows with it: ~145 MiB at 2,000 rows, ~200 MiB at
// 10,000), large enough that a statement's round trip is a small part of its batch.
const DEFAULT_BATCH_ROWS = 2000;

/**
 * Connections on which a PostgreSQL target hashes its records' chunks (beside the load, then beside the indexes). One
 * keeps up with the load (≈ 4 s of PostgreSQL's CPU for 1,000,000 records, spread over the load); two took CPU from
 * the COPY on 2 cores and made the load slower.
 */
const HASHER_CONNECTIONS = 1;

/** Where a database URL points, so that a copy onto itself is refused (a path resolved; host, database, schema). */
export function databaseIdentity(url: string): string {
  if (url.startsWith('sqlite:')) {
    const path = resolve(url.slice('sqlite:'.length));
    try {
      return `sqlite:${realpathSync(path)}`;
    } catch {
      return `sqlite:${path}`;
    }
  }
  const options = parsePostgresUrl(url);
  return describePostgres(options.connectionString, options.schema ?? 'public');
}

function checkUrl(url: string, flag: string): void {
  if (url === 'sqlite:' || url === 'sqlite::memory:') {
    throw new CopyRefusal(`${flag}: an in-memory SQLite database cannot be copied from or to; give a file: sqlite:<path>`);
  }
  if (url.startsWith('sqlite:')) return;
  if (/^postgres(ql)?:\/\//.test(url)) {
    try {
      parsePostgresUrl(url);
    } catch (error) {
      throw new CopyRefusal(`${flag}: ${(error as Error).message}`);
    }
    return;
  }
  const shown = url.replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@');
  throw new CopyRefusal(`${flag}: unsupported database URL "${shown}": use sqlite:<path> or postgres://…`);
}

async function openSide(url: string, role: 'source' | 'target'): Promise<CopySide> {
  if (url.startsWith('sqlite:')) return openSqliteSide(url.slice('sqlite:'.length), role);
  return openPostgresSide(url, role);
}

export async function copyStore(options: CopyOptions): Promise<CopyResult> {
  checkUrl(options.from, '--from');
  checkUrl(options.to, '--to');
  const sourceIdentity = databaseIdentity(options.from);
  if (sourceIdentity === databaseIdentity(options.to)) {
    throw new CopyRefusal(`--from and --to are the same database (${sourceIdentity})`);
  }
  const started = Date.now();
  const source = await openSide(options.from, 'source');
  let target: CopySide | undefined;
  try {
    target = await openSide(options.to, 'target');
    return await copyBetween(source, target, sourceIdentity, options, started);
  } finally {
    await target?.close();
    await source.close();
  }
}

async function copyBetween(
  source: CopySide,
  target: CopySide,
  sourceIdentity: string,
  options: CopyOptions,
  started: number,
): Promise<CopyResult> {
  const emit = options.onEvent ?? (() => {});
  const phases: PhaseTimes = { rowsMs: 0, indexesMs: 0, verifyMs: 0 };
  let models: ModelCheck[];
  const batchRows = options.batchRows ?? DEFAULT_BATCH_ROWS;
  await source.beginSnapshot();
  await checkSourceTables(source);
  try {
    await target.migrate();
  } catch (error) {
    throw new Error(`target: the migrations failed: ${(error as Error).message}`, { cause: error });
  }
  const columns = await sharedColumns(source, target);
  await checkTargetIsEmptyOrResumable(target, sourceIdentity, options.resume);
  await target.writeMarker(sourceIdentity);

  const totals = new Map<string, number>();
  const resumed = new Map<string, number>();
  for (const table of COPIED_TABLES) {
    totals.set(table.name, await source.count(table.name));
    resumed.set(table.name, await target.count(table.name));
  }
  emit({ phase: 'start', totals, resumed });

  let copiedRows = 0;
  // A copy that starts the records from the first reads every source record once: it hashes them on the way.
  const sourceHash = resumed.get('records') === 0 ? new ChecksumAccumulator(source.dataIsJsonbText) : null;
  // A target that hashes its own records (PostgreSQL) does it chunk by chunk as they are written.
  const hasher: ChunkHasher | null = target.openChunkHasher ? await target.openChunkHasher(HASHER_CONNECTIONS) : null;
  try {
    const targetChunks = hasher && sourceHash ? new TargetChunks(hasher, sourceHash.boundariesSoFar) : null;
    const recordsStarted = Date.now();
    for (const table of COPIED_TABLES) {
      const tableColumns = columns.get(table.name)!;
      const isRecords = table.name === 'records';
      const done = resumed.get(table.name)!;
      const total = totals.get(table.name)!;
      emit({ phase: 'table', table: table.name, done, total });
      if (done < total) await target.deferIndexes(table.name);
      if (isRecords && done < total && target.fieldIndexesBeforeLoad)
        await target.fieldIndexesBeforeLoad(await modelsOf(target, batchRows), total);
      await loadTable(source, target, {
        table: table.name,
        columns: tableColumns,
        key: table.key,
        after: await target.lastKey(table.name, table.key),
        batchRows,
        sourceHash: isRecords ? sourceHash : null,
        written: (lastKey, rows) => {
          if (isRecords) targetChunks?.heldThrough(String(lastKey[0]));
          copiedRows += rows;
          emit({ phase: 'rows', table: table.name, rows });
        },
      });
    }
    phases.rowsMs = Date.now() - recordsStarted;

    // The target's rows are all there: its indexes are built while the rest of its records are hashed (by PostgreSQL
    // itself, on the hasher's connections; else here, on a second connection).
    const verifyStarted = Date.now();
    // A resumed copy reads the source's records again for its checksums (and the boundaries of its chunks) first.
    const sourceResult = sourceHash ? sourceHash.result() : await checksumsOf(source, batchRows, null);
    const verifier = hasher ? null : await openSide(options.to, 'target');
    let targetSums: Promise<Checksums>;
    try {
      targetSums = (async () => {
        const sums = hasher
          ? await (targetChunks ?? new TargetChunks(hasher, sourceResult.boundaries)).checksums()
          : (await checksumsOf(verifier!, batchRows, sourceResult.boundaries)).checksums;
        phases.verifyMs = Date.now() - verifyStarted;
        return sums;
      })();
      // Handled below; not left unhandled if the indexes fail first.
      targetSums.catch(() => {});
      emit({ phase: 'indexes' });
      const indexesStarted = Date.now();
      // Also those that a stopped copy dropped, when this run had nothing left to copy into their table.
      await target.buildIndexes(await modelsOf(target, batchRows));
      phases.indexesMs = Date.now() - indexesStarted;
      emit({ phase: 'verify' });
      await targetSums;
    } finally {
      await verifier?.close();
    }
    models = compareChecksums(sourceResult.checksums, await targetSums);
  } finally {
    await hasher?.close();
  }
  const tables: TableCheck[] = [];
  for (const table of COPIED_TABLES) {
    tables.push({ table: table.name, source: totals.get(table.name)!, target: await target.count(table.name) });
  }
  const ok = tables.every((check) => check.source === check.target) && models.every((check) => check.source === check.target);
  if (ok) await target.dropMarker();
  return { copiedRows, tables, models, ok, elapsedMs: Date.now() - started, phases };
}

/** Every source table is either copied or known not to be; the copied ones are all there. */
async function checkSourceTables(source: CopySide): Promise<void> {
  const names = await source.tableNames();
  const copied = new Set(COPIED_TABLES.map((table) => table.name));
  const unknown = names.filter((name) => !copied.has(name) && !(name in NOT_COPIED));
  if (unknown.length > 0) {
    throw new Error(
      `source: table ${unknown.join(', ')} is not known to copy (a newer migration?): ` +
        'add it to COPIED_TABLES or NOT_COPIED in src/store/copy/tables.ts',
    );
  }
  if (!names.includes('schema_migrations')) {
    throw new CopyRefusal(`--from: ${source.description} is not a content-service database (no schema_migrations table)`);
  }
}

/** Each copied table's columns, the same on both ends (else the source's schema is from another version). */
async function sharedColumns(source: CopySide, target: CopySide): Promise<Map<string, string[]>> {
  const columns = new Map<string, string[]>();
  for (const table of COPIED_TABLES) {
    const targetColumns = await target.columnNames(table.name);
    const sourceColumns = new Set(await source.columnNames(table.name));
    const missing = targetColumns.filter((name) => !sourceColumns.has(name));
    const extra = [...sourceColumns].filter((name) => !targetColumns.includes(name));
    if (missing.length > 0 || extra.length > 0) {
      const what = [
        ...missing.map((name) => `no ${table.name}.${name}`),
        ...extra.map((name) => `an unknown ${table.name}.${name}`),
      ];
      throw new Error(
        `source: its schema is not this version's (${what.join(', ')}): start this version's server on it once ` +
          '(it migrates the database), stop it, then copy',
      );
    }
    columns.set(table.name, targetColumns);
  }
  return columns;
}

async function checkTargetIsEmptyOrResumable(target: CopySide, sourceIdentity: string, resume: boolean): Promise<void> {
  const marker = await target.readMarker();
  if (marker !== null) {
    if (!resume) {
      throw new CopyRefusal(
        `--to: ${target.description} holds an unfinished copy from ${marker}: run the same command with --resume to continue it`,
      );
    }
    if (marker !== sourceIdentity) {
      throw new CopyRefusal(`--to: ${target.description} holds an unfinished copy from ${marker}, not from ${sourceIdentity}`);
    }
    return;
  }
  const held: string[] = [];
  for (const table of COPIED_TABLES) {
    const count = await target.count(table.name);
    if (count > 0) held.push(`${count} ${table.name}`);
  }
  if (held.length > 0) {
    throw new CopyRefusal(
      `--to: ${target.description} is not empty (${held.join(', ')}): copy into a new database (or ?schema=) only` +
        (resume ? '; --resume continues only a copy that this command started' : ''),
    );
  }
}

async function modelsOf(side: CopySide, batchRows: number): Promise<ModelIndexSource[]> {
  const models: ModelIndexSource[] = [];
  let after: Row | null = null;
  for (;;) {
    const page = await side.readPage('models', ['id', 'fields', 'product', 'record_count'], ['id'], after, batchRows);
    for (const [id, fields, product, records] of page)
      models.push({
        id: String(id),
        fields: String(fields),
        product: product === null ? null : String(product),
        records: Number(records),
      });
    if (page.length < batchRows) return models;
    after = [page[page.length - 1]![0]!];
  }
}

function compareChecksums(source: Checksums, target: Checksums): ModelCheck[] {
  const ids = [...new Set([...source.keys(), ...target.keys()])].sort();
  return ids.map((modelId) => ({
    modelId,
    records: source.get(modelId)?.records ?? 0,
    source: source.get(modelId)?.digest ?? '(none)',
    target: target.get(modelId)?.digest ?? '(none)',
  }));
}
