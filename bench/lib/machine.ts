import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { postgresBaseUrl, type DbKind } from './database.js';
import { REPO_ROOT } from './server.js';

export interface MachineInfo {
  nproc: number;
  cpu: string;
  memoryGiB: number;
  node: string;
  sqlite: string;
  postgres: string | null;
  gitCommit: string;
  /** The working tree had uncommitted changes when measured. */
  gitDirty: boolean;
  loadAverageAtStart: number[];
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

export async function machineInfo(kind: DbKind): Promise<MachineInfo> {
  const memory = new Database(':memory:');
  const sqlite = (memory.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  memory.close();
  let postgres: string | null = null;
  if (kind === 'postgres') {
    const client = new pg.Client({ connectionString: postgresBaseUrl() });
    await client.connect();
    postgres = ((await client.query('SHOW server_version')).rows[0] as { server_version: string }).server_version;
    await client.end();
  }
  return {
    nproc: availableParallelism(),
    cpu: cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    sqlite,
    postgres,
    gitCommit: git(['rev-parse', '--short', 'HEAD']),
    gitDirty: git(['status', '--porcelain', '--', 'src']) !== '',
    loadAverageAtStart: loadavg().map((value) => Math.round(value * 100) / 100),
  };
}

/** Writes bench/results/<name>-<db>.json. */
export function writeResults(name: string, kind: DbKind, payload: Record<string, unknown>): string {
  const dir = join(REPO_ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}-${kind}.json`);
  const document = {
    benchmark: name,
    database: kind,
    finishedAt: new Date().toISOString(),
    loadAverageAtEnd: loadavg().map((value) => Math.round(value * 100) / 100),
    ...payload,
  };
  writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
  return file;
}

/**
 * Waits (up to maxWaitSeconds) for the 1-minute load average to drop under maxLoad: other processes on the machine
 * make the figures noisy. Returns the load average when it went ahead.
 */
export async function waitForQuiet(maxLoad: number, maxWaitSeconds: number): Promise<number> {
  const deadline = Date.now() + maxWaitSeconds * 1000;
  let load = loadavg()[0]!;
  if (load > maxLoad && maxWaitSeconds > 0)
    console.log(`load average ${load.toFixed(2)} > ${maxLoad}: waiting up to ${maxWaitSeconds} s`);
  while (load > maxLoad && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    load = loadavg()[0]!;
  }
  if (load > maxLoad) console.log(`warning: load average ${load.toFixed(2)} while measuring: figures may be noisy`);
  return load;
}
