// content-service copy --from-storage --to-storage: a store with an asset copied SQLite → PostgreSQL with its bytes
// from one storage directory into another; a server on the copy and the new storage serves the same bytes.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import sharp from 'sharp';
import { bootstrapAdmin } from '../support/client.js';
import { dropSchemaOf, freshPostgresUrl, postgresTarget } from '../support/databases.js';
import { runCli, startServer } from '../support/server.js';
import { upload } from '../support/assets.js';

const pgTarget = await postgresTarget();
if ('failure' in pgTarget) throw new Error(pgTarget.failure);

describe('copy with asset bytes', { skip: pgTarget.skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'cs-copy-assets-'));
  const sourceUrl = `sqlite:${join(dir, 'source.db')}`;
  const targetUrl = freshPostgresUrl(process.env.DATABASE_URL ?? '', 'copy_assets');
  after(async () => {
    await dropSchemaOf(targetUrl);
  });

  test('the rows and the bytes move; the copy serves the same file; storages go together', async () => {
    const source = await startServer({ databaseUrl: sourceUrl, storage: `file:${join(dir, 'a')}` });
    const owner = await bootstrapAdmin(source, { org: 'acme', workspace: 'main', email: 'owner@acme.test' });
    const bytes = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#0a0' } })
      .png()
      .toBuffer();
    const asset = (await upload(owner, bytes, 'green.png')).body.asset;
    await source.stop();

    const half = await runCli(['copy', '--from', sourceUrl, '--to', targetUrl, '--from-storage', `file:${join(dir, 'a')}`]);
    assert.equal(half.code, 2, half.stdout + half.stderr);
    assert.match(half.stderr, /--from-storage and --to-storage go together/);

    const copy = await runCli(
      [
        'copy',
        '--from',
        sourceUrl,
        '--to',
        targetUrl,
        '--from-storage',
        `file:${join(dir, 'a')}`,
        '--to-storage',
        `file:${join(dir, 'b')}`,
      ],
      { timeoutMs: 60_000 },
    );
    assert.equal(copy.code, 0, copy.stdout + copy.stderr);
    assert.match(copy.stdout, /Asset files: 1 copied, 0 already there, 0 missing\./);
    assert.ok(existsSync(join(dir, 'b', owner.workspaceId, asset.sha256)));

    const target = await startServer({ databaseUrl: targetUrl, storage: `file:${join(dir, 'b')}` });
    try {
      const served = await fetch(`${target.url}${new URL(asset.url).pathname}`);
      assert.equal(served.status, 200);
      assert.deepEqual(Buffer.from(await served.arrayBuffer()), bytes);
    } finally {
      await target.stop();
    }
  });
});
