// Runs every test file under test/ with Node's own test runner (TypeScript through tsx).
// When DATABASE_URL is set, the black-box HTTP suite runs a second time with every server on PostgreSQL, at the same
// time as the main suite (the two share no database, and both mostly wait on their servers); its report is printed
// after the main suite's. The load suites measure latency under load they make themselves: they run last, alone.
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';

function findTests(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return findTests(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Runs `files`; resolves with the exit status and the wall time. `reportFile` takes the report instead of stdout. */
function run(files, { env = {}, concurrency = 2, reportFile } = {}) {
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

const only = process.argv.slice(2);
if (only.length > 0) process.exit((await run(only)).status);

const LOAD_SUITES = join('test', 'soak');
const all = findTests('test').sort();
const suiteStarted = performance.now();
const phases = [];

const postgresReport = join(mkdtempSync(join(tmpdir(), 'content-service-tests-')), 'http-on-postgres.txt');
const postgresPhase = process.env.DATABASE_URL
  ? run(findTests('test/http').sort(), { env: { TEST_SERVER_DATABASE: 'postgres' }, reportFile: postgresReport })
  : null;
const main = await run(all.filter((file) => !file.startsWith(LOAD_SUITES)));
phases.push(['main suite', main]);
if (postgresPhase) {
  const postgres = await postgresPhase;
  phases.push(['HTTP suite on PostgreSQL', postgres]);
  console.log('\n# The HTTP suite again, every server on PostgreSQL (DATABASE_URL), run beside the main suite\n');
  console.log(readFileSync(postgresReport, 'utf8'));
} else {
  console.log('\n# DATABASE_URL is not set: the HTTP suite ran on SQLite only; PostgreSQL suites were skipped.\n');
}

console.log('\n# The load suites, one at a time\n');
phases.push([
  'load suites',
  await run(
    all.filter((file) => file.startsWith(LOAD_SUITES)),
    { concurrency: 1 },
  ),
]);

console.log('\n# Time');
for (const [name, { status, seconds }] of phases)
  console.log(`#   ${name}: ${seconds.toFixed(0)} s${status === 0 ? '' : ' (failed)'}`);
console.log(`#   in all: ${((performance.now() - suiteStarted) / 1000).toFixed(0)} s`);
process.exit(phases.some(([, { status }]) => status !== 0) ? 1 : 0);
