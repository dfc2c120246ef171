// `npm run build`: the server (tsc, tsconfig.build.json) and the admin application (build-admin-ui.mjs) into dist/,
// then a stamp of the sources it was built from. With --if-changed (what `npm start`, `npm test` and `prepare` run) it
// builds only when the sources differ from the stamp's, so that a start after `npm ci` takes a second, not half a
// minute, and so that the first `npx content-service` in a clone (npm installs the folder into its npx cache, which
// runs `prepare`) does not rewrite dist/ under a running server.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const stampFile = join(root, 'dist', '.build-stamp');
/** What the build reads: a change to any of these makes dist/ stale. */
const INPUTS = [
  'src',
  'scripts/build.mjs',
  'scripts/build-admin-ui.mjs',
  'tsconfig.json',
  'tsconfig.build.json',
  'tsconfig.admin-ui.json',
  'package-lock.json',
];
/** What a finished build has: without them dist/ is incomplete whatever the stamp says. */
const OUTPUTS = ['dist/cli/main.js', 'dist/admin-ui/index.html', 'dist/admin-ui/admin-ui/main.js'];

/** The file itself, or every file under a directory; nothing for a path that does not exist. */
function files(path) {
  const absolute = join(root, path);
  if (!existsSync(absolute)) return [];
  if (!statSync(absolute).isDirectory()) return [path];
  return readdirSync(absolute, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

function sourcesFingerprint() {
  const hash = createHash('sha256');
  for (const path of INPUTS.flatMap(files).sort()) {
    hash
      .update(path)
      .update('\0')
      .update(readFileSync(join(root, path)))
      .update('\0');
  }
  return hash.digest('hex');
}

function isCurrent(fingerprint) {
  if (!OUTPUTS.every((path) => existsSync(join(root, path)))) return false;
  return existsSync(stampFile) && readFileSync(stampFile, 'utf8').trim() === fingerprint;
}

function run(args) {
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const fingerprint = sourcesFingerprint();
if (process.argv.includes('--if-changed') && isCurrent(fingerprint)) process.exit(0);
if (process.argv.includes('--if-changed')) process.stderr.write('Building (the sources changed since the last build)…\n');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
run([tsc, '-p', join(root, 'tsconfig.build.json')]);
run([join(root, 'scripts', 'build-admin-ui.mjs')]);
writeFileSync(stampFile, `${fingerprint}\n`);
