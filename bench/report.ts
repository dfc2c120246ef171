/**
 * Prints the figures of bench/results/*.json as Markdown tables (for docs/benchmarks.md), with the issue's targets
 * marked met or missed.
 *
 *   node --import tsx bench/report.ts > /tmp/figures.md
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './lib/server.js';
import type { Spread } from './lib/stats.js';
import { fmtInt, fmtMs, fmtRatio, fmtSpread } from './lib/table.js';

// The parts of the results files (bench/lib/machine.ts: writeResults, with each benchmark's own payload) read here.
// Older files may lack what later issues added: those members are optional.

/** What every results file has: when and where it was measured. */
interface Conditions {
  finishedAt: string;
  reps: number;
  loadAverageAtEnd?: number[];
  machine: { gitCommit: string; gitDirty: boolean; loadAverageAtStart?: number[] };
}

/** The raw-driver baselines of the import benchmark, and the names of the service's ratios to each. */
type BaselineKey = 'raw' | 'smallestRaw' | 'smallestRawOwnCheckpoints';
type RatioKey = 'ratioToRaw' | 'ratioToSmallest' | 'ratioToSmallestOwnCheckpoints';
type PerRepKey = 'perRepetitionRatio' | 'perRepetitionRatioToSmallest' | 'perRepetitionRatioToSmallestOwnCheckpoints';

/** One client count's import through the service, with its ratio to each baseline the file has. */
type ImportServiceEntry = { clients: number; rowsPerSecond: Spread } & Record<RatioKey, number> & Record<PerRepKey, Spread>;

interface ImportResults extends Conditions, Partial<Record<Exclude<BaselineKey, 'raw'>, { rowsPerSecond: Spread }>> {
  rows: number;
  rowBytes: number;
  batchSize: number;
  raw: { rowsPerSecond: Spread };
  service: ImportServiceEntry[];
}

interface SingleWritesResults extends Conditions {
  durationSeconds: number;
  warmupSeconds: number;
  summary: { operation: string; connections: number; requestsPerSecond: Spread; p50Ms: Spread; p99Ms: Spread }[];
}

interface ReadsResults extends Conditions {
  sizes: number[];
  summary: {
    size: number;
    query: string;
    offset: number;
    clientP50Ms: Spread;
    clientP99Ms: Spread;
    serverP50Ms: Spread;
    serverP99Ms: Spread;
  }[];
  checks: {
    offset0ServerP50AtLargestMs: number;
    offset0ServerP50AtSmallestMs: number;
    growthLargestOverSmallest: number;
    /** By number of records (issue 14). */
    deliveryOffset0ServerP50Ms?: Record<number, number>;
  };
}

interface PagingResults extends Conditions {
  sizes: number[];
  summary: { size: number; seconds: Spread; msPerPage: Spread; lastPageMs: Spread }[];
  growth: { size: number; sizeRatio: number; timeRatio: number }[];
}

interface MemoryResults extends Conditions {
  rows: number;
  clients: number;
  peakMiB: Spread;
  runs: { startMiB: number; endMiB: number }[];
  cli: string;
}

const DBS = ['sqlite', 'postgres'] as const;

/** The results file of a benchmark on a database, as that benchmark wrote it, or null when there is none. */
function load<Results extends Conditions>(name: string, db: string): Results | null {
  const file = join(REPO_ROOT, 'bench', 'results', `${name}-${db}.json`);
  if (!existsSync(file)) return null;
  const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
  return parsed as Results;
}

function table(headers: string[], rows: (string | number)[][]): string {
  return [
    `| ${headers.join(' | ')} |`,
    `|${headers.map((_, index) => (index === 0 ? '---' : '---:')).join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}

function conditions(results: Conditions): string {
  const load = (values: number[] | undefined) => (values ? values.map((value) => value.toFixed(2)).join(' / ') : '?');
  return `_${results.finishedAt} · commit ${results.machine.gitCommit}${results.machine.gitDirty ? ' + uncommitted src changes' : ''} · ${results.reps} repetitions · load average (1/5/15 min) ${load(results.machine.loadAverageAtStart)} at start, ${load(results.loadAverageAtEnd)} at end_`;
}

const mark = (met: boolean) => (met ? '**met**' : '**missed**');
const out: string[] = [];
const targets: string[] = [];
const spreadText = (value: Spread, format: (value: number) => string) => fmtSpread(value, format);

for (const db of DBS) {
  const result = load<ImportResults>('import', db);
  if (!result) continue;
  out.push(
    `### Import, ${db}: ${fmtInt(result.rows)} rows of ~${result.rowBytes} bytes, ${result.batchSize}-row calls\n`,
    conditions(result),
    '',
  );
  // The baselines this result has (the smallest-schema ones since issue 13), with their ratio fields.
  const candidates: { key: BaselineKey; label: string; ratio: RatioKey; perRep: PerRepKey; header: string }[] = [
    {
      key: 'raw',
      label: 'raw driver, service schema',
      ratio: 'ratioToRaw',
      perRep: 'perRepetitionRatio',
      header: 'service / raw',
    },
    {
      key: 'smallestRaw',
      label: 'raw driver, smallest schema',
      ratio: 'ratioToSmallest',
      perRep: 'perRepetitionRatioToSmallest',
      header: 'service / smallest schema',
    },
    {
      key: 'smallestRawOwnCheckpoints',
      label: "raw driver, smallest schema, SQLite's own checkpoints",
      ratio: 'ratioToSmallestOwnCheckpoints',
      perRep: 'perRepetitionRatioToSmallestOwnCheckpoints',
      header: "service / smallest, SQLite's checkpoints",
    },
  ];
  const baselines = candidates.flatMap((baseline) => {
    const run = result[baseline.key];
    return run ? [{ ...baseline, run }] : [];
  });
  const blank = baselines.flatMap(() => ['', '']);
  out.push(
    table(
      ['path', 'rows/s median (min–max)', ...baselines.flatMap((baseline) => [baseline.header, 'per repetition'])],
      [
        ...baselines.map((baseline) => [baseline.label, spreadText(baseline.run.rowsPerSecond, fmtInt), ...blank]),
        ...result.service.map((entry) => [
          `service, ${entry.clients} client${entry.clients > 1 ? 's' : ''}`,
          spreadText(entry.rowsPerSecond, fmtInt),
          ...baselines.flatMap((baseline) => [fmtRatio(entry[baseline.ratio]), spreadText(entry[baseline.perRep], fmtRatio)]),
        ]),
      ],
    ),
    '',
  );
  const goal = db === 'sqlite' ? 0.6 : 0.5;
  for (const entry of result.service) {
    const clients = `${entry.clients} client${entry.clients > 1 ? 's' : ''}`;
    targets.push(
      `| Import ≥ ${goal} × raw driver (${db}, ${clients}) | ${entry.ratioToRaw.toFixed(3)} (${fmtInt(entry.rowsPerSecond.median)} vs ${fmtInt(result.raw.rowsPerSecond.median)} rows/s) | ${mark(entry.ratioToRaw >= goal)} |`,
    );
    if (db !== 'sqlite' || entry.clients !== 1) continue;
    // Issue 13: against the smallest schema the job needs, on SQLite with one client.
    for (const baseline of baselines.filter((candidate) => candidate.key !== 'raw')) {
      const ratio = entry[baseline.ratio];
      targets.push(
        `| Import ≥ 0.6 × ${baseline.label} (${db}, ${clients}) | ${ratio.toFixed(3)} (${fmtInt(entry.rowsPerSecond.median)} vs ${fmtInt(baseline.run.rowsPerSecond.median)} rows/s) | ${mark(ratio >= 0.6)} |`,
      );
    }
  }
}

for (const db of DBS) {
  const result = load<SingleWritesResults>('single-writes', db);
  if (!result) continue;
  out.push(
    `### Single writes, ${db}: ${result.durationSeconds} s per cell after ${result.warmupSeconds} s warm-up\n`,
    conditions(result),
    '',
  );
  out.push(
    table(
      ['operation', 'connections', 'requests/s', 'p50 ms', 'p99 ms'],
      result.summary.map((entry) => [
        `record.${entry.operation}`,
        entry.connections,
        spreadText(entry.requestsPerSecond, fmtInt),
        spreadText(entry.p50Ms, fmtMs),
        spreadText(entry.p99Ms, fmtMs),
      ]),
    ),
    '',
  );
  if (db === 'sqlite') {
    const at8 = result.summary.filter((entry) => entry.connections === 8);
    targets.push(
      `| Single writes ≥ 3,000 req/s at 8 connections (sqlite) | ${at8.map((entry) => `${entry.operation} ${fmtInt(entry.requestsPerSecond.median)}`).join(', ')} | ${mark(at8.every((entry) => entry.requestsPerSecond.median >= 3000))} |`,
    );
  }
}

for (const variant of ['reads', 'reads-large']) {
  for (const db of DBS) {
    const result = load<ReadsResults>(variant, db);
    if (!result) continue;
    out.push(
      `### Reads, ${db}: record.list limit 100, one request at a time (${result.sizes.map(fmtInt).join(' and ')} records)\n`,
      conditions(result),
      '',
    );
    out.push(
      table(
        ['records', 'selection', 'offset', 'client p50 ms', 'client p99 ms', 'server p50 ms', 'server p99 ms'],
        result.summary.map((entry) => [
          fmtInt(entry.size),
          entry.query,
          fmtInt(entry.offset),
          spreadText(entry.clientP50Ms, fmtMs),
          spreadText(entry.clientP99Ms, fmtMs),
          spreadText(entry.serverP50Ms, fmtMs),
          spreadText(entry.serverP99Ms, fmtMs),
        ]),
      ),
      '',
    );
    const checks = result.checks;
    const largest = Math.max(...result.sizes);
    const smallest = Math.min(...result.sizes);
    targets.push(
      `| list offset 0 server p50 < 1 ms at ${fmtInt(largest)} records (${db}${largest < 1_000_000 ? '; the target is at 1,000,000' : ''}) | ${fmtMs(checks.offset0ServerP50AtLargestMs)} ms | ${mark(checks.offset0ServerP50AtLargestMs < 1)} |`,
      `| list offset 0 at ${fmtInt(largest)} ≤ 1.5 × at ${fmtInt(smallest)} (${db}) | ${fmtRatio(checks.growthLargestOverSmallest)} × (${fmtMs(checks.offset0ServerP50AtLargestMs)} vs ${fmtMs(checks.offset0ServerP50AtSmallestMs)} ms) | ${mark(checks.growthLargestOverSmallest <= 1.5)} |`,
    );
    // Issue 14: the unfiltered first page on PostgreSQL, on both routes.
    const delivery = checks.deliveryOffset0ServerP50Ms?.[largest];
    if (db === 'postgres' && delivery !== undefined) {
      const worst = Math.max(checks.offset0ServerP50AtLargestMs, delivery);
      targets.push(
        `| first page server p50 ≤ 1.5 ms at ${fmtInt(largest)} records (postgres, admin and delivery routes${largest < 1_000_000 ? '; the target is at 1,000,000' : ''}) | ${fmtMs(checks.offset0ServerP50AtLargestMs)} ms admin, ${fmtMs(delivery)} ms delivery | ${mark(worst <= 1.5)} |`,
      );
    }
  }
}

for (const variant of ['paging', 'paging-large']) {
  for (const db of DBS) {
    const result = load<PagingResults>(variant, db);
    if (!result) continue;
    out.push(`### Full paging, ${db}: every record by offset paging, limit 100\n`, conditions(result), '');
    out.push(
      table(
        ['records', 'total s', 'ms a page', 'last page ms', 'time × smallest', 'size × smallest'],
        result.summary.map((entry, index) => [
          fmtInt(entry.size),
          spreadText(entry.seconds, (value) => value.toFixed(2)),
          spreadText(entry.msPerPage, fmtMs),
          spreadText(entry.lastPageMs, fmtMs),
          fmtRatio(result.growth[index]!.timeRatio),
          fmtRatio(result.growth[index]!.sizeRatio),
        ]),
      ),
      '',
    );
    const last = result.growth[result.growth.length - 1]!;
    targets.push(
      `| paging time at ${fmtInt(last.size)} ≤ ${fmtRatio(1.2 * last.sizeRatio)} × at ${fmtInt(result.sizes[0]!)} (${db}${last.size < 1_000_000 ? '; the target is 1,000,000 vs 100,000' : ''}) | ${fmtRatio(last.timeRatio)} × | ${mark(last.timeRatio <= 1.2 * last.sizeRatio)} |`,
    );
  }
}

for (const variant of ['memory', 'memory-large']) {
  for (const db of DBS) {
    const result = load<MemoryResults>(variant, db);
    if (!result) continue;
    out.push(
      `### Memory, ${db}: server RSS importing ${fmtInt(result.rows)} rows (${result.clients} clients, 1000-row calls)\n`,
      conditions(result),
      '',
    );
    const mib = (value: number) => value.toFixed(0);
    const spreadOf = (key: 'startMiB' | 'endMiB') => {
      const values = result.runs.map((run) => run[key]);
      const sorted = [...values].sort((a, b) => a - b);
      return { median: sorted[Math.floor(sorted.length / 2)]!, min: sorted[0]!, max: sorted[sorted.length - 1]! };
    };
    out.push(
      table(
        ['measure', 'MiB median (min–max)'],
        [
          ['RSS before the import', spreadText(spreadOf('startMiB'), mib)],
          ['peak RSS during the import', spreadText(result.peakMiB, mib)],
          ['RSS after the import', spreadText(spreadOf('endMiB'), mib)],
        ],
      ),
      '',
      `CLI through a 1 GB CSV: ${result.cli}`,
      '',
    );
    targets.push(
      `| server RSS < 300 MB during the ${fmtInt(result.rows)}-row import (${db}${result.rows < 1_000_000 ? '; the target is the 1,000,000-row import' : ''}) | ${mib(result.peakMiB.max)} MiB (max of runs) | ${mark(result.peakMiB.max < 300)} |`,
    );
  }
}

console.log(['## Targets', '', '| target | figure | |', '|---|---|---|', ...targets, '', '## Figures', '', ...out].join('\n'));
