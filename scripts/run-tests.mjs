// Runs the test files under test/ with Node's own test runner (TypeScript through tsx), in one of two tiers:
//
//   node scripts/run-tests.mjs            `npm test`: every test file but the system suites. When DATABASE_URL is
//                                         set, the HTTP files whose answers depend on the store run a second time
//                                         with every server on PostgreSQL, at the same time as the main suite (the
//                                         two share no database); its report is printed after the main suite's.
//   node scripts/run-tests.mjs --system   `npm run test:system`: the system suites, where several real processes, a
//                                         killed one or a load the test makes itself is the point: test/cluster and
//                                         test/crash, the CLI's process suites (serve, bootstrap, token create,
//                                         signals, copy: a process per test), the fuzz and the executor differential
//                                         at full size (`npm test` runs a quarter of each), then the load suites
//                                         (test/soak) last, alone, as they measure latency under the load they make.
//                                         .ci/run runs it after `npm test`.
//   node scripts/run-tests.mjs FILE...    just those files.
//
// Each prints the wall time of its phases and in all at the end.
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { spawn } from 'node:child_process';

function findTests(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return findTests(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

/**
 * Test files at once. Most of a file's time is waiting (on its servers' sockets, the database, a browser), and every
 * server of `npm test` runs in its file's own process (test/support/server.ts), so a little more than one file per
 * core keeps the cores busy; TEST_CONCURRENCY sets it.
 */
const CONCURRENCY = Number(process.env.TEST_CONCURRENCY) || Math.max(2, availableParallelism() + 1);

/** Runs `files`; resolves with the exit status and the wall time. `reportFile` takes the report instead of stdout. */
function run(files, { env = {}, concurrency = CONCURRENCY, reportFile } = {}) {
  const report = reportFile ? ['--test-reporter=spec', `--test-reporter-destination=${reportFile}`] : [];
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      // --test-force-exit: a test file whose tests are done exits even if a process it started (and failed to stop)
      // still holds one of its pipes, so that a failure is reported instead of the run waiting for it forever.
      ['--import', 'tsx', '--test', '--test-force-exit', `--test-concurrency=${concurrency}`, ...report, ...files],
      { stdio: 'inherit', env: { ...process.env, ...env } },
    );
    child.on('close', (code) => resolve({ status: code ?? 1, seconds: (performance.now() - started) / 1000 }));
  });
}

const args = process.argv.slice(2);
const system = args[0] === '--system';
const only = system ? args.slice(1) : args;
if (only.length > 0) process.exit((await run(only)).status);

/** The system tier (`npm run test:system`): several processes, crashes, load. */
const SYSTEM_SUITES = [join('test', 'cluster'), join('test', 'crash')];
const LOAD_SUITES = [join('test', 'soak')];
/**
 * The CLI's own contract, real processes in every test (serve, bootstrap, token create, signals, copy, import, schema,
 * types with its tsc run): CPU that `npm test` cannot spare on two cores.
 */
const CLI_PROCESS_FILES = [
  'http/cli',
  'http/cli-signals-npm',
  'http/copy-cli',
  'http/copy-assets',
  'http/schema-cli',
  'http/schema-media',
  'client/cli',
  'client/types',
].map((name) => join('test', `${name}.test.ts`));
/** Generated inputs: `npm test` runs the first part of each fixed or random sequence, the system tier all of it. */
const SCALED_FILES = [join('test', 'security', 'fuzz.test.ts'), join('test', 'graphql', 'compiled-differential.test.ts')];
const SCALED_DOWN = {
  FUZZ_REQUESTS: process.env.FUZZ_REQUESTS ?? '500',
  DIFFERENTIAL_DOCUMENTS: process.env.DIFFERENTIAL_DOCUMENTS ?? '300',
};
const under = (dirs) => (file) => dirs.some((dir) => file.startsWith(dir + sep));

/**
 * The HTTP files that run a second time on PostgreSQL in `npm test`: those whose answers come from the store (records,
 * filters, paging, delivery versions and caching, sessions, tokens, the write budget's shared limiters, concurrent
 * writers). The rest of test/http checks the HTTP layer, the CLI or processes, which do not depend on the store (or
 * choose their databases themselves: copy-cli, cli-signals-npm); the store contract tests (test/store) run on both.
 */
const HTTP_ON_POSTGRES = [
  'admin-reading',
  'admin-session',
  'assets',
  'concurrency',
  'delivery-caching',
  'delivery-reading',
  'delivery',
  'drafts',
  'models',
  'record-create',
  'record-filter',
  'record-history',
  'record-import',
  'record-list',
  'record-patch-update-delete',
  'size-and-text-limits',
  'tokens-api',
  'workspace-default-locale',
  'write-budget',
  'write-races',
].map((name) => join('test', 'http', `${name}.test.ts`));

const BROWSER_FILES = join('test', 'e2e', 'in-one-process.ts');

const all = findTests('test').sort();
const suiteStarted = performance.now();
const phases = [];

if (system) {
  for (const file of [...CLI_PROCESS_FILES, ...SCALED_FILES]) statSync(file);
  phases.push([
    'system suites (cluster, crash, CLI processes, full-size fuzz and differential)',
    await run([...all.filter(under(SYSTEM_SUITES)), ...CLI_PROCESS_FILES, ...SCALED_FILES]),
  ]);
  console.log('\n# The load suites, one at a time\n');
  phases.push(['load suites', await run(all.filter(under(LOAD_SUITES)), { concurrency: 1 })]);
} else {
  for (const file of HTTP_ON_POSTGRES) statSync(file); // a file renamed away must not silently drop out
  const postgresReport = join(mkdtempSync(join(tmpdir(), 'content-service-tests-')), 'http-on-postgres.txt');
  const postgresPhase = process.env.DATABASE_URL
    ? run(HTTP_ON_POSTGRES, { env: { TEST_SERVER_DATABASE: 'postgres' }, reportFile: postgresReport, concurrency: 1 })
    : null;
  // The browser files run in one process, launching Chromium once (test/e2e/in-one-process.ts): first, as the longest.
  const main = await run(
    [
      BROWSER_FILES,
      ...all.filter(
        (file) => !under([...SYSTEM_SUITES, ...LOAD_SUITES, join('test', 'e2e')])(file) && !CLI_PROCESS_FILES.includes(file),
      ),
    ],
    { env: SCALED_DOWN },
  );
  phases.push(['main suite', main]);
  if (postgresPhase) {
    const postgres = await postgresPhase;
    phases.push(['store-dependent HTTP files on PostgreSQL', postgres]);
    console.log(
      '\n# The store-dependent HTTP files again, every server on PostgreSQL (DATABASE_URL), run beside the main suite\n',
    );
    console.log(readFileSync(postgresReport, 'utf8'));
  } else {
    console.log('\n# DATABASE_URL is not set: the HTTP suite ran on SQLite only; PostgreSQL suites were skipped.\n');
  }
  console.log(
    '# The cluster, crash, CLI process and load suites, and the full-size fuzz and differential, run with `npm run test:system`.',
  );
}

console.log('\n# Time');
for (const [name, { status, seconds }] of phases)
  console.log(`#   ${name}: ${seconds.toFixed(0)} s${status === 0 ? '' : ' (failed)'}`);
console.log(`#   in all: ${((performance.now() - suiteStarted) / 1000).toFixed(0)} s`);
process.exit(phases.some(([, { status }]) => status !== 0) ? 1 : 0);
