// npm run bench:copy [-- --records 1m --shape mixed|catalogue]: `content-service copy` of a SQLite store holding
// --records records (bench/lib/copy-source.ts: `mixed`, the default, is 24 models in 4 workspaces with two indexed
// fields and a relation each, a link per record, ~600-byte rows with unicode and escapes, users and tokens;
// `catalogue` is one product model of ~200-byte rows with one indexed field) into a fresh PostgreSQL schema, as the CLI
// runs it (a child process, progress lines on); the wall time from start to exit (copy, field indexes, verification)
// and the peak RSS of the process (its VmHWM, read every 50 ms while it runs). Beside it, the reference: the same
// records and links COPYed by the raw drivers into scratch tables (bench/lib/copy-reference.ts). Targets (issues 17
// and 37): ≥ 50,000 records/s, peak RSS < 200 MB.
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { existsSync, readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { Args } from './lib/args.js';
import { cleanupAll } from './lib/cleanup.js';
import { referenceCopy } from './lib/copy-reference.js';
import { fillSource, SOURCE_SHAPES, type SourceShape } from './lib/copy-source.js';
import { createDatabase, databaseKinds, postgresBaseUrl } from './lib/database.js';
import { machineInfo, writeResults } from './lib/machine.js';
import { memoryStatus } from './lib/rss.js';
import { CLI, REPO_ROOT } from '../test/support/server.js';

const args = new Args();
/** `--records` (`--rows` as before). */
const rows = args.int('records', args.int('rows', 1_000_000));
const shape = args.string('shape', 'mixed') as SourceShape;
if (!SOURCE_SHAPES.includes(shape)) throw new Error(`--shape: "${shape}" is not one of ${SOURCE_SHAPES.join(', ')}`);
/** A SQLite file to keep the source in between runs (filled when missing): repeated runs skip the fill. */
const keptSource = args.string('source', '');
/** Another build's CLI to run instead of this tree's (`--cli /tmp/base/bin/content-service.js`): before/after on one machine state. */
const cliPath = args.string('cli', CLI);
databaseKinds('postgres');

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
    console.log(`source: ${rows.toLocaleString('en')} records in SQLite (kept in ${keptSource}; --shape must match it)`);
  } else {
    const fillStarted = performance.now();
    fillSource(sourcePath, rows, shape);
    console.log(
      `source: ${rows.toLocaleString('en')} records (${shape}) in SQLite (${((performance.now() - fillStarted) / 1000).toFixed(1)} s to make)`,
    );
  }
  const loadAtStart = loadavg();
  const result = await runCopy(`sqlite:${sourcePath}`, target.url);
  process.stdout.write(result.stdout);
  if (result.code !== 0) throw new Error(`copy exited ${result.code}\n${result.stderr}`);
  const seconds = result.ms / 1000;
  const perSecond = Math.round(rows / seconds);
  const copyLine = /Copied (\d+) rows in ([\d.]+) s/.exec(result.stdout);
  const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(' ');
  console.log(
    `copy SQLite → PostgreSQL: ${rows.toLocaleString('en')} records in ${seconds.toFixed(1)} s wall (process start to exit) = ` +
      `${perSecond.toLocaleString('en')} records/s (target ≥ 50,000); peak RSS ${result.peakMiB.toFixed(0)} MiB (target < 200 MB); ` +
      `CPU of the process ${result.cpu.user.toFixed(1)} s user + ${result.cpu.system.toFixed(1)} s system; ` +
      `load average ${load(loadAtStart)} → ${load(loadavg())}`,
  );
  // The same rows by the database's own bulk path, right after, on the same machine state.
  const reference = await referenceCopy(sourcePath, postgresBaseUrl());
  const referencePerSecond = Math.round(reference.records / reference.seconds);
  console.log(
    `reference, raw COPY of the same ${reference.records.toLocaleString('en')} records and ${reference.links.toLocaleString('en')} links ` +
      `into scratch tables (primary keys only; no checksums, no index builds): ${reference.seconds.toFixed(1)} s = ` +
      `${referencePerSecond.toLocaleString('en')} records/s; the copy ran at ${((perSecond / referencePerSecond) * 100).toFixed(0)} % of it`,
  );
  const file = writeResults('copy', 'postgres', {
    machine,
    argv: process.argv.slice(2),
    records: rows,
    shape,
    wallSeconds: Math.round(seconds * 10) / 10,
    recordsPerSecond: perSecond,
    reportedByCopy: copyLine ? { rows: Number(copyLine[1]), seconds: Number(copyLine[2]) } : null,
    peakRssMiB: Math.round(result.peakMiB),
    cpuSeconds: result.cpu,
    cli: cliPath,
    reference: { ...reference, recordsPerSecond: referencePerSecond },
    loadAverageAtStart: loadAtStart,
    loadAverageAtEnd: loadavg(),
    phases: result.stderr.trim().split('\n'),
  });
  console.log(`results: ${file}`);
  await source?.dispose();
  await target.dispose();
} finally {
  await cleanupAll();
}
