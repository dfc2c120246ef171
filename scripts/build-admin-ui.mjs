// Builds the admin web application into dist/admin-ui: TypeScript compiled by tsc (tsconfig.admin-ui.json,
// browser ES modules, no bundler) into admin-ui/ and client/ (the shared pure modules of src/client), laid out as
// in src so that the relative imports between them hold, then the page and the stylesheet copied to the top.
// Part of `npm run build`.
// Built in a directory of its own and swapped in at the end, so that a server (or a test) reading
// dist/admin-ui while a build runs never finds it half written, and no module removed from the sources lingers.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'admin-ui');
const staging = join(root, 'dist', `.admin-ui-build-${process.pid}`);
const retired = join(root, 'dist', `.admin-ui-old-${process.pid}`);
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

rmSync(staging, { recursive: true, force: true });
const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.admin-ui.json'), '--outDir', staging], { stdio: 'inherit' });
if (result.status !== 0) {
  rmSync(staging, { recursive: true, force: true });
  process.exit(result.status ?? 1);
}
const staticDir = join(root, 'src', 'admin-ui', 'static');
for (const name of readdirSync(staticDir)) copyFileSync(join(staticDir, name), join(staging, name));
// Another build may swap its own directory in at the same moment: move whatever is there aside and retry.
for (let attempt = 0; ; attempt++) {
  try {
    if (existsSync(out)) renameSync(out, `${retired}-${attempt}`);
    renameSync(staging, out);
    break;
  } catch (error) {
    if (attempt >= 5) throw error;
  }
}
for (const name of readdirSync(join(root, 'dist'))) {
  if (name.startsWith(`.admin-ui-old-${process.pid}-`)) rmSync(join(root, 'dist', name), { recursive: true, force: true });
}
