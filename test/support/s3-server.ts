// A real S3-protocol server for the tests (s3rver, on 127.0.0.1, a free port, a temporary directory), so that the
// S3 storage is tested through the AWS SDK against HTTP, not against a mock of the SDK.
import { mkdtemp, rm } from 'node:fs/promises';
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
interface S3rverInstance {
  run(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
  httpServer?: Server;
}

// s3rver is CommonJS without type declarations: loaded through require, typed by the little it is used for.
const S3rver = createRequire(import.meta.url)('s3rver') as new (options: S3rverOptions) => S3rverInstance;

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
