// Builds the admin web application into dist/admin-ui: TypeScript compiled by tsc (tsconfig.admin-ui.json,
// browser ES modules, no bundler) into admin-ui/, client/ (the pure modules of src/client it imports) and shared/
// (src/shared, which tsc follows from their imports), laid out as in src so that the relative imports between them
// hold, then the page and the stylesheet copied to the top.
// A package the application imports by name is served from vendor/: its browser build (one self-contained ES
// module) is copied there and the name in the compiled modules replaced by the copy's relative path (no import
// map: the page's content security policy allows no inline script). Part of `npm run build`.
// Built in a directory of its own and swapped in at the end, so that a server (or a test) reading
// dist/admin-ui while a build runs never finds it half written, and no module removed from the sources lingers.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'admin-ui');
const staging = join(root, 'dist', `.admin-ui-build-${process.pid}`);
const retired = join(root, 'dist', `.admin-ui-old-${process.pid}`);
const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');

/** Package name as imported by the application → its file in vendor/. */
const VENDORED = { 'csv-parse/browser/esm/sync': 'csv-parse.js' };

rmSync(staging, { recursive: true, force: true });
const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.admin-ui.json'), '--outDir', staging], {
  stdio: 'inherit',
});
if (result.status !== 0) {
  rmSync(staging, { recursive: true, force: true });
  process.exit(result.status ?? 1);
}
try {
  vendor(staging);
} catch (error) {
  rmSync(staging, { recursive: true, force: true });
  throw error;
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

function vendor(dir) {
  mkdirSync(join(dir, 'vendor'));
  for (const [name, file] of Object.entries(VENDORED)) copyFileSync(require.resolve(name), join(dir, 'vendor', file));
  const modules = readdirSync(dir, { recursive: true }).filter((path) => path.endsWith('.js') && !path.startsWith('vendor'));
  for (const path of modules) {
    const file = join(dir, path);
    const source = readFileSync(file, 'utf8');
    const rewritten = source.replace(
      /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])([^'"./][^'"]*)\2/g,
      (_, before, quote, name) => {
        const copy = VENDORED[name];
        if (!copy)
          throw new Error(
            `${path} imports the package ${name}: the browser cannot load it (add it to VENDORED with its browser build)`,
          );
        let target = relative(dirname(file), join(dir, 'vendor', copy))
          .split('\\')
          .join('/');
        if (!target.startsWith('.')) target = `./${target}`;
        return `${before}${quote}${target}${quote}`;
      },
    );
    if (rewritten !== source) writeFileSync(file, rewritten);
  }
}
