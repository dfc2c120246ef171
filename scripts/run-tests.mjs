// Runs every test file under test/ with Node's own test runner (TypeScript through tsx).
// When DATABASE_URL is set, the black-box HTTP suite runs a second time with every server on PostgreSQL.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function findTests(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return findTests(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

function run(files, env = {}, concurrency = 2) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...files], {
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  return result.status ?? 1;
}

const only = process.argv.slice(2);
if (only.length > 0) process.exit(run(only));

// The soak suites measure latency and memory under load they make themselves: they run alone, one after another.
const LOAD_SUITES = join('test', 'soak');
const all = findTests('test').sort();
let status = run(all.filter((file) => !file.startsWith(LOAD_SUITES)));
console.log('\n# The load suites, one at a time\n');
status =
  run(
    all.filter((file) => file.startsWith(LOAD_SUITES)),
    {},
    1,
  ) || status;
if (process.env.DATABASE_URL) {
  console.log('\n# The HTTP suite again, every server on PostgreSQL (DATABASE_URL)\n');
  status = run(findTests('test/http').sort(), { TEST_SERVER_DATABASE: 'postgres' }) || status;
} else {
  console.log('\n# DATABASE_URL is not set: the HTTP suite ran on SQLite only; PostgreSQL suites were skipped.\n');
}
process.exit(status);
