// Streaming benchmark: peak RSS of `content-service import` on generated CSV files of growing size.
// Memory should stay flat as the file grows (rows are streamed; only one batch of ≤1000 rows is held).
//
//   npm run build && node --import tsx bench/import-memory.ts [dryRunRows...] [--write ROWS...]
//
// Defaults: dry runs (parse + convert every row, read the model from a server) of 100k, 400k and 1.6M rows, and
// real imports of 20k and 80k rows into a server with a large write budget. Prints one line per run.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootstrapAdmin } from '../test/support/client.js';
import { CLI, REPO_ROOT, startServer } from '../test/support/server.js';

const args = process.argv.slice(2);
const writeAt = args.indexOf('--write');
const dryRows = (writeAt === -1 ? args : args.slice(0, writeAt)).map(Number).filter((n) => n > 0);
const writeRows =
  writeAt === -1
    ? []
    : args
        .slice(writeAt + 1)
        .map(Number)
        .filter((n) => n > 0);
const DRY = dryRows.length > 0 ? dryRows : [100_000, 400_000, 1_600_000];
const WRITE = writeAt !== -1 ? writeRows : [20_000, 80_000];

async function generate(path: string, rows: number): Promise<void> {
  const out = createWriteStream(path);
  const write = (text: string) => (out.write(text) ? undefined : new Promise<void>((resolve) => out.once('drain', resolve)));
  await write('sku,title,price,name.en,name.pl,active,released\n');
  for (let i = 0; i < rows; i++) {
    await write(
      `SKU-${i},"Product ${i}, with a comma",${(i % 1000) + 0.99},Product ${i},Produkt ${i},${i % 2 === 0},2024-05-01\n`,
    );
  }
  await new Promise<void>((resolve) => out.end(resolve));
}

/** Runs the CLI, sampling its peak RSS (VmHWM) from /proc until it exits. */
function measure(
  cliArgs: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; peakMb: number; seconds: number; stdout: string }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [CLI, ...cliArgs], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    let peakKb = 0;
    const sample = () => {
      try {
        const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (match) peakKb = Math.max(peakKb, Number(match[1]));
      } catch {
        // exited
      }
    };
    const timer = setInterval(sample, 20);
    child.on('exit', (code) => {
      clearInterval(timer);
      resolve({ code, peakMb: peakKb / 1024, seconds: (Date.now() - started) / 1000, stdout });
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), 'content-service-bench-'));
const server = await startServer();
try {
  const admin = await bootstrapAdmin(server);
  const env = {
    CONTENT_SERVICE_URL: server.url,
    CONTENT_SERVICE_TOKEN: admin.token,
    CONTENT_SERVICE_WORKSPACE_ID: admin.workspaceId,
  };
  const fields = [
    { key: 'sku', type: 'text', required: true },
    { key: 'title', type: 'text', required: true },
    { key: 'price', type: 'number' },
    { key: 'name', type: 'translatable' },
    { key: 'active', type: 'boolean' },
    { key: 'released', type: 'date' },
  ];
  console.log('mode      rows        file MB   peak RSS MB   seconds   rows/s   exit');
  const line = (mode: string, rows: number, path: string, result: Awaited<ReturnType<typeof measure>>) =>
    console.log(
      `${mode.padEnd(9)} ${String(rows).padStart(9)}   ${(statSync(path).size / 1048576).toFixed(1).padStart(7)}   ${result.peakMb.toFixed(1).padStart(11)}   ${result.seconds.toFixed(1).padStart(7)}   ${String(Math.round(rows / result.seconds)).padStart(6)}   ${result.code}`,
    );
  for (const rows of DRY) {
    const model = await admin.createProductModel({ fields });
    const path = join(dir, `dry-${rows}.csv`);
    await generate(path, rows);
    line('dry-run', rows, path, await measure(['import', path, '--model', model.slug, '--dry-run', '--quiet'], env));
    rmSync(path);
  }
  for (const rows of WRITE) {
    const model = await admin.createProductModel({ fields });
    const path = join(dir, `write-${rows}.csv`);
    await generate(path, rows);
    line('import', rows, path, await measure(['import', path, '--model', model.slug, '--quiet'], env));
    rmSync(path);
  }
} finally {
  await server.dispose();
  rmSync(dir, { recursive: true, force: true });
}
