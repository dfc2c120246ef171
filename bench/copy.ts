// npm run bench:copy [-- --rows 1m]: `content-service copy` of a SQLite store holding --rows records (one product
// model, ~200-byte rows, one indexed field) into a fresh PostgreSQL schema, as the CLI runs it (a child process,
// progress lines on); the wall time from start to exit (copy, field indexes, verification) and the peak RSS of the
// process (its VmHWM, read every 50 ms while it runs). Targets (issue 17): ≥ 50,000 records/s, peak RSS < 200 MB.
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { existsSync, readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { newId } from '../src/ids.js';
import { migrate } from '../src/store/sqlite/migrations.js';
import { Args } from './lib/args.js';
import { productModelInput, productRow, skuPrefix } from './lib/catalog.js';
import { cleanupAll } from './lib/cleanup.js';
import { createDatabase, databaseKinds } from './lib/database.js';
import { machineInfo, writeResults } from './lib/machine.js';
import { memoryStatus } from './lib/rss.js';
import { CLI, REPO_ROOT } from '../test/support/server.js';

const args = new Args();
const rows = args.int('rows', 1_000_000);
/** A SQLite file to keep the source in between runs (filled when missing): repeated runs skip the fill. */
const keptSource = args.string('source', '');
/** Another build's CLI to run instead of this tree's (`--cli /tmp/base/bin/content-service.js`): before/after on one machine state. */
const cliPath = args.string('cli', CLI);
databaseKinds('postgres');

/** The source: the service's schema, one workspace and product model, `count` records written by the raw driver. */
function fillSource(path: string, count: number): void {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  migrate(db);
  const now = Date.now();
  const [orgId, workspaceId, modelId] = [newId(), newId(), newId()];
  const model = productModelInput('product');
  const fields = model.fields.map((field) => (field.key === 'price' ? { ...field, indexed: true } : field));
  db.prepare('INSERT INTO organisations (id, slug, created_at) VALUES (?, ?, ?)').run(orgId, 'bench', now);
  db.prepare('INSERT INTO workspaces (id, org_id, slug, created_at) VALUES (?, ?, ?, ?)').run(workspaceId, orgId, 'main', now);
  db.prepare(
    `INSERT INTO models (id, workspace_id, slug, name, display_field, fields, product, delivery_access, record_count, created_at, updated_at)
     VALUES (?, ?, 'product', 'Product', 'title', ?, ?, 'none', ?, ?, ?)`,
  ).run(modelId, workspaceId, JSON.stringify(fields), JSON.stringify(model.product), count, now, now);
  const insert = db.prepare(
    'INSERT INTO records (id, model_id, workspace_id, data, sku, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const prefix = skuPrefix();
  const batch = db.transaction((start: number, end: number) => {
    for (let index = start; index < end; index++) {
      const row = productRow(prefix, index);
      insert.run(newId(), modelId, workspaceId, JSON.stringify(row), row.sku, now + index, now + index);
    }
  });
  for (let start = 0; start < count; start += 50_000) batch(start, Math.min(count, start + 50_000));
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

/** CPU seconds (user, system) a live process has used so far, from /proc/<pid>/stat (100 ticks a second). */
function cpuSeconds(pid: number): { user: number; system: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
}

function runCopy(
  from: string,
  to: string,
): Promise<{
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  peakMiB: number;
  cpu: { user: number; system: number };
}> {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, [cliPath, 'copy', '--from', from, '--to', to], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // VmHWM (the kernel's own peak) and VmRSS while the process lives; a process that has exited but is not yet
    // reaped has neither (NaN), so those samples are skipped.
    let peakMiB = 0;
    // The last sample's CPU time: at most one interval (50 ms) short of the whole.
    let cpu = { user: 0, system: 0 };
    const sample = () => {
      try {
        const { rssMiB, hwmMiB } = memoryStatus(child.pid!);
        for (const value of [rssMiB, hwmMiB]) if (Number.isFinite(value)) peakMiB = Math.max(peakMiB, value);
        const used = cpuSeconds(child.pid!);
        if (used.user + used.system >= cpu.user + cpu.system) cpu = used;
      } catch {
        // the process has ended
      }
    };
    const sampler = setInterval(sample, 50);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('exit', (code) => {
      const ms = performance.now() - started;
      clearInterval(sampler);
      resolve({ code, stdout, stderr, ms, peakMiB, cpu });
    });
  });
}

try {
  const machine = await machineInfo('postgres');
  const source = keptSource ? null : await createDatabase('sqlite');
  const sourcePath = keptSource || source!.location;
  const target = await createDatabase('postgres');
  if (keptSource && existsSync(keptSource)) {
    const db = new Database(keptSource, { readonly: true });
    const held = (db.prepare('SELECT count(*) AS n FROM records').get() as { n: number }).n;
    db.close();
    if (held !== rows) throw new Error(`--source ${keptSource} holds ${held} records, not ${rows}`);
    console.log(`source: ${rows.toLocaleString('en')} records in SQLite (kept in ${keptSource})`);
  } else {
    const fillStarted = performance.now();
    fillSource(sourcePath, rows);
    console.log(
      `source: ${rows.toLocaleString('en')} records in SQLite (${((performance.now() - fillStarted) / 1000).toFixed(1)} s to make)`,
    );
  }
  const result = await runCopy(`sqlite:${sourcePath}`, target.url);
  process.stdout.write(result.stdout);
  if (result.code !== 0) throw new Error(`copy exited ${result.code}\n${result.stderr}`);
  const seconds = result.ms / 1000;
  const perSecond = Math.round(rows / seconds);
  const copyLine = /Copied (\d+) rows in ([\d.]+) s/.exec(result.stdout);
  console.log(
    `copy SQLite → PostgreSQL: ${rows.toLocaleString('en')} records in ${seconds.toFixed(1)} s wall (process start to exit) = ` +
      `${perSecond.toLocaleString('en')} records/s (target ≥ 50,000); peak RSS ${result.peakMiB.toFixed(0)} MiB (target < 200 MB); ` +
      `CPU of the process ${result.cpu.user.toFixed(1)} s user + ${result.cpu.system.toFixed(1)} s system; load average ${loadavg()
        .map((value) => value.toFixed(2))
        .join(' ')}`,
  );
  const file = writeResults('copy', 'postgres', {
    machine,
    argv: process.argv.slice(2),
    records: rows,
    wallSeconds: Math.round(seconds * 10) / 10,
    recordsPerSecond: perSecond,
    reportedByCopy: copyLine ? { rows: Number(copyLine[1]), seconds: Number(copyLine[2]) } : null,
    peakRssMiB: Math.round(result.peakMiB),
    cpuSeconds: result.cpu,
    cli: cliPath,
    loadAverageAtEnd: loadavg(),
    phases: result.stderr.trim().split('\n'),
  });
  console.log(`results: ${file}`);
  await source?.dispose();
  await target.dispose();
} finally {
  await cleanupAll();
}
