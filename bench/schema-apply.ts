/**
 * `content-service schema apply` of 50 models into an empty workspace (target: under 2 s). Each model has 8 fields
 * of every type (an object with sub-fields, two indexed fields) and its relations (see `relations`). Each repetition
 * runs on a fresh database and server: the CLI is run as a user runs it (a new process, Node start included), then
 * once more with the same file (no change).
 *
 *   node --import tsx bench/schema-apply.ts [--models 50] [--reps 3] [--db sqlite|postgres] [--ring]
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { runBenchmark, startService } from './lib/run.js';
import { REPO_ROOT } from './lib/server.js';
import { spread } from './lib/stats.js';
import { fmtMs, fmtSpread, printTable } from './lib/table.js';

const execFileAsync = promisify(execFile);

/**
 * CPU seconds (user + system) from /proc/<pid>/stat (100 ticks a second): a live process's own (`self: true`), or
 * those of its children that have been waited for (this process's `cutime + cstime`: the CLI runs, once they exit).
 */
function cpuSeconds(pid: number | 'self', children: boolean): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const [user, system] = children ? [fields[13], fields[14]] : [fields[11], fields[12]];
  return (Number(user) + Number(system)) / 100;
}

function slug(index: number): string {
  return `model-${String(index).padStart(2, '0')}`;
}

/**
 * The relations of model `index`: by default a tree (`parent`: the model of half its number) with cross links
 * (`related`, hasMany: every fifth model to the next one) and one cycle (model 0 and model 1 point at each other);
 * with --ring, every model points at the next and the last at the first, one cycle through all (the worst case:
 * one create at a time).
 */
function relations(index: number, count: number, ring: boolean): object[] {
  if (ring) {
    return [
      { key: 'next', type: 'relation', relationTo: `model:${slug((index + 1) % count)}` },
      { key: 'parents', type: 'relation', relationTo: `model:${slug(Math.floor(index / 2))}`, relationType: 'hasMany' },
    ];
  }
  const fields: object[] = [];
  if (index > 0) fields.push({ key: 'parent', type: 'relation', relationTo: `model:${slug(Math.floor((index - 1) / 2))}` });
  if (index === 0 || index % 5 === 4) {
    const target = index === 0 ? 1 : (index + 1) % count;
    fields.push({ key: 'related', type: 'relation', relationTo: `model:${slug(target)}`, relationType: 'hasMany' });
  }
  return fields;
}

function schemaFile(count: number, ring: boolean): unknown {
  const models = Array.from({ length: count }, (_, index) => ({
    slug: slug(index),
    name: `Model ${index}`,
    description: `Benchmark model ${index}`,
    icon: '📦',
    color: '#1e90ff',
    displayField: 'title',
    deliveryAccess: index % 2 === 0 ? 'public' : 'none',
    fields: [
      { key: 'title', label: 'Title', type: 'text', required: true, indexed: true },
      { key: 'body', type: 'text' },
      { key: 'count', type: 'number', indexed: true },
      { key: 'published', type: 'date' },
      { key: 'visible', type: 'boolean' },
      { key: 'name', type: 'translatable' },
      {
        key: 'meta',
        type: 'object',
        fields: [
          { key: 'source', type: 'text' },
          { key: 'score', type: 'number' },
        ],
      },
      { key: 'extra', type: 'object' },
      ...relations(index, count, ring),
    ],
  }));
  return { version: 1, models };
}

await runBenchmark('schema-apply', async ({ args, kind, reps }) => {
  const count = args.int('models', 50);
  const dir = mkdtempSync(join(tmpdir(), 'bench-schema-'));
  const file = join(dir, 'schema.json');
  const ring = args.flag('ring');
  writeFileSync(file, JSON.stringify(schemaFile(count, ring), null, 2));
  const runs: {
    applyMs: number;
    reportedMs: number;
    secondApplyMs: number;
    versionMs: number;
    cliCpuMs: number;
    serverCpuMs: number;
  }[] = [];
  try {
    for (let rep = 1; rep <= reps; rep++) {
      const service = await startService(kind);
      try {
        const env = {
          ...process.env,
          CONTENT_SERVICE_URL: service.server.baseUrl,
          CONTENT_SERVICE_TOKEN: service.workspace.token,
          CONTENT_SERVICE_WORKSPACE_ID: service.workspace.workspaceId,
        };
        const cli = async (...cliArgs: string[]) => {
          const started = performance.now();
          const { stdout } = await execFileAsync(process.execPath, ['bin/content-service.js', ...cliArgs], {
            cwd: REPO_ROOT,
            env,
          });
          return { ms: performance.now() - started, stdout };
        };
        // The start of a Node process with the CLI loaded, for scale: it is part of every apply's time.
        const version = await cli('--version');
        // CPU time is what the machine's load does not move: the CLI's (a waited-for child) and the server's.
        const [cliCpuBefore, serverCpuBefore] = [cpuSeconds('self', true), cpuSeconds(service.server.pid, false)];
        const first = await cli('schema', 'apply', file);
        const cliCpuMs = (cpuSeconds('self', true) - cliCpuBefore) * 1000;
        const serverCpuMs = (cpuSeconds(service.server.pid, false) - serverCpuBefore) * 1000;
        if (!first.stdout.includes(`Applied: ${count} created`)) throw new Error(`unexpected output: ${first.stdout}`);
        const second = await cli('schema', 'apply', file);
        if (!second.stdout.startsWith('No changes')) throw new Error(`second apply changed something: ${second.stdout}`);
        // The CLI's own figure: from its start of work (modules loaded) to the last change.
        const reported = /in ([\d.]+) s\n/.exec(first.stdout);
        const reportedMs = reported ? Number(reported[1]) * 1000 : NaN;
        runs.push({ applyMs: first.ms, reportedMs, secondApplyMs: second.ms, versionMs: version.ms, cliCpuMs, serverCpuMs });
        console.log(
          `rep ${rep}: apply of ${count} models ${fmtMs(first.ms)} ms (${fmtMs(reportedMs)} ms as the CLI reports it), second apply (no change) ${fmtMs(second.ms)} ms, ` +
            `content-service --version ${fmtMs(version.ms)} ms; CPU of the apply: CLI ${fmtMs(cliCpuMs)} ms, server ${fmtMs(serverCpuMs)} ms`,
        );
      } finally {
        await service.dispose();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const summary = {
    models: count,
    applyMs: spread(runs.map((run) => run.applyMs)),
    reportedApplyMs: spread(runs.map((run) => run.reportedMs)),
    secondApplyMs: spread(runs.map((run) => run.secondApplyMs)),
    processStartMs: spread(runs.map((run) => run.versionMs)),
    cliCpuMs: spread(runs.map((run) => run.cliCpuMs)),
    serverCpuMs: spread(runs.map((run) => run.serverCpuMs)),
    targetMs: 2000,
  };
  printTable(
    `schema apply of ${count} models (${ring ? 'one ring' : 'a tree, cross links, a cycle'}) into an empty workspace on ${kind}, CLI process included — median (min–max) of ${reps}`,
    ['run', 'ms'],
    [
      [`apply (${count} created)`, fmtSpread(summary.applyMs, fmtMs)],
      ['  of which the work (as the CLI reports it)', fmtSpread(summary.reportedApplyMs, fmtMs)],
      ['apply again (no change)', fmtSpread(summary.secondApplyMs, fmtMs)],
      ['content-service --version', fmtSpread(summary.processStartMs, fmtMs)],
      ['CPU of the apply: the CLI process', fmtSpread(summary.cliCpuMs, fmtMs)],
      ['CPU of the apply: the server process', fmtSpread(summary.serverCpuMs, fmtMs)],
    ],
  );
  console.log(`target: under 2000 ms: ${summary.applyMs.median < 2000 ? 'met' : 'NOT met'} (median)`);
  return { relations: ring ? 'ring' : 'tree', summary, runs };
});
