// A real S3-protocol server for the tests (s3rver, on 127.0.0.1, a free port, a temporary directory), so that the
// S3 storage is tested through the AWS SDK against HTTP, not against a mock of the SDK.
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface S3rverOptions {
  address: string;
  port: number;
  directory: string;
  silent: boolean;
  configureBuckets: { name: string; configs: string[] }[];
}
interface KoaContext {
  method: string;
  path: string;
  query: Record<string, string | undefined>;
  status: number;
  body: unknown;
}
interface S3rverInstance {
  run(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
  httpServer?: Server;
  /** Koa's middleware, run in order; the last is s3rver's router. */
  middleware: ((ctx: KoaContext, next: () => Promise<void>) => Promise<void>)[];
  store: { getResourcePath(bucket: string, key: string | undefined, resource: string): string };
}

// s3rver is CommonJS without type declarations: loaded through require, typed by the little it is used for.
const require = createRequire(import.meta.url);
const S3rver = require('s3rver') as new (options: S3rverOptions) => S3rverInstance;
const S3Error = require('s3rver/lib/models/error') as new (code: string, message: string) => Error;

/**
 * The two multipart operations s3rver lacks and the resumable uploads' S3Store uses (test/http/assets-tus.test.ts):
 * ListParts (`GET ?uploadId`) and AbortMultipartUpload (`DELETE ?uploadId`), over the parts s3rver itself keeps
 * (`<uploads dir>/<uploadId>/<partNumber>` and `.md5`), answered as S3 answers them (NoSuchUpload when the upload
 * was completed or aborted). Path-style requests only; their signature is not checked.
 */
function multipartExtras(server: S3rverInstance) {
  return async (ctx: KoaContext, next: () => Promise<void>) => {
    const uploadId = ctx.query.uploadId;
    if (uploadId === undefined || (ctx.method !== 'GET' && ctx.method !== 'DELETE')) return next();
    const [, bucket = '', ...keyParts] = ctx.path.split('/');
    const key = decodeURIComponent(keyParts.join('/'));
    if (!/^[0-9a-f]+$/.test(uploadId)) throw new S3Error('NoSuchUpload', 'The specified upload does not exist.');
    const dir = join(server.store.getResourcePath(bucket, undefined, 'uploads'), uploadId);
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      throw new S3Error('NoSuchUpload', 'The specified upload does not exist.');
    }
    if (ctx.method === 'DELETE') {
      await rm(dir, { recursive: true, force: true });
      ctx.status = 204;
      ctx.body = '';
      return;
    }
    const numbers = names
      .filter((name) => /^\d+$/.test(name))
      .map(Number)
      .sort((a, b) => a - b);
    const Part = await Promise.all(
      numbers.map(async (number) => ({
        PartNumber: number,
        ETag: JSON.stringify((await readFile(join(dir, `${number}.md5`), 'utf8')).trim()),
        Size: (await stat(join(dir, String(number)))).size,
      })),
    );
    ctx.body = { ListPartsResult: { Bucket: bucket, Key: key, UploadId: uploadId, IsTruncated: false, Part } };
  };
}

export interface S3TestServer {
  /** A STORAGE_URL for the test bucket, keys under `prefix`. */
  url(prefix: string): string;
  bucket: string;
  close(): Promise<void>;
}

const BUCKET = 'content-service-test';

export async function startS3Server(): Promise<S3TestServer> {
  // s3rver's own credentials, which it checks signatures against.
  process.env.AWS_ACCESS_KEY_ID ??= 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'S3RVER';
  const directory = await mkdtemp(join(tmpdir(), 'content-service-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: true,
    configureBuckets: [{ name: BUCKET, configs: [] }],
  });
  // Before the router, after the middleware that writes plain-object answers as XML.
  server.middleware.splice(server.middleware.length - 1, 0, multipartExtras(server));
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    bucket: BUCKET,
    url: (prefix) => `s3://${BUCKET}/${encodeURI(prefix)}?endpoint=${endpoint}&region=us-east-1&forcePathStyle=true`,
    async close() {
      // Keep-alive sockets of clients that were not closed would hold the server open.
      server.httpServer?.closeAllConnections();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
