// Assets' bytes in an S3-compatible bucket (`s3://<bucket>/<prefix>?…`, docs/media.md): AWS S3, MinIO, R2, Ceph.
// The AWS SDK is loaded only when such a storage is opened (openS3Storage), so a service on file storage never loads it.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type * as S3 from '@aws-sdk/client-s3';
import { checkKey, checkRange } from './file-storage.js';
import type { ByteRange, Storage, StoredObject } from './storage.js';

type Sdk = typeof S3;

export interface S3Location {
  bucket: string;
  /** Prepended to every key: empty, or ending with `/`. */
  prefix: string;
  endpoint?: string;
  region?: string;
  forcePathStyle: boolean;
}

const URL_FORM = 's3://<bucket>/<prefix>?endpoint=…&region=…&forcePathStyle=true';
const URL_PARAMETERS = new Set(['endpoint', 'region', 'forcePathStyle']);

/** Reads `s3://<bucket>/<prefix>?endpoint=…&region=…&forcePathStyle=true`; throws naming STORAGE_URL when it is not. */
export function parseS3Url(url: string): S3Location {
  const refuse = (why: string) => new Error(`STORAGE_URL ${JSON.stringify(url)}: ${why} (expected ${URL_FORM})`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw refuse('not a URL');
  }
  if (parsed.protocol !== 's3:') throw refuse('not an s3:// URL');
  if (parsed.username || parsed.password) throw refuse('credentials go in the AWS environment variables, not the URL');
  const bucket = parsed.hostname;
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw refuse('no valid bucket name');
  for (const name of parsed.searchParams.keys()) if (!URL_PARAMETERS.has(name)) throw refuse(`unknown parameter ${name}`);
  const path = decodeURIComponent(parsed.pathname).replace(/^\/+/, '');
  const prefix = path === '' || path.endsWith('/') ? path : `${path}/`;
  if (prefix !== '') checkKey(prefix, 'prefix');
  const forcePathStyle = parsed.searchParams.get('forcePathStyle') ?? 'false';
  if (forcePathStyle !== 'true' && forcePathStyle !== 'false') throw refuse('forcePathStyle is true or false');
  const endpoint = parsed.searchParams.get('endpoint') ?? undefined;
  if (endpoint !== undefined && !/^https?:\/\/./.test(endpoint)) throw refuse('endpoint is an http(s) URL');
  const region = parsed.searchParams.get('region') ?? undefined;
  return { bucket, prefix, endpoint, region, forcePathStyle: forcePathStyle === 'true' };
}

/** The AWS SDK's client settings for a location (also those of the resumable uploads' S3Store, tus-area.ts). */
export function s3ClientConfig(location: S3Location): S3.S3ClientConfig {
  return {
    endpoint: location.endpoint,
    // A custom endpoint (MinIO, a test server) rarely cares about the region, but the SDK needs one.
    region: location.region ?? (location.endpoint && !process.env.AWS_REGION ? 'us-east-1' : undefined),
    forcePathStyle: location.forcePathStyle,
    // Checksums only where the operation requires one: S3-compatible stores do not all read the SDK's newer
    // trailing (aws-chunked) checksums.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  };
}

/** Opens the bucket of an `s3://` URL; credentials come from the standard AWS environment variables (read by the SDK). */
export async function openS3Storage(url: string): Promise<S3Storage> {
  const location = parseS3Url(url);
  const sdk = await import('@aws-sdk/client-s3');
  const client = new sdk.S3Client(s3ClientConfig(location));
  const shown = `s3://${location.bucket}/${location.prefix}${location.endpoint ? ` at ${location.endpoint}` : ''}`;
  return new S3Storage(sdk, client, location, shown);
}

export class S3Storage implements Storage {
  constructor(
    private readonly sdk: Sdk,
    private readonly client: S3.S3Client,
    private readonly location: S3Location,
    readonly description: string,
  ) {}

  async putFile(key: string, path: string, contentType: string): Promise<void> {
    const Key = this.keyOf(key);
    // Content under a key never changes: an object that is there already is the same bytes.
    if (await this.head(key)) return;
    const { size } = await stat(path);
    await this.client.send(
      new this.sdk.PutObjectCommand({
        Bucket: this.location.bucket,
        Key,
        Body: createReadStream(path),
        ContentLength: size,
        ContentType: contentType,
      }),
    );
  }

  async putBytes(key: string, bytes: Buffer, contentType: string): Promise<void> {
    const Key = this.keyOf(key);
    if (await this.head(key)) return;
    await this.client.send(
      new this.sdk.PutObjectCommand({
        Bucket: this.location.bucket,
        Key,
        Body: bytes,
        ContentLength: bytes.length,
        ContentType: contentType,
      }),
    );
  }

  async head(key: string): Promise<StoredObject | null> {
    try {
      const answer = await this.client.send(
        new this.sdk.HeadObjectCommand({ Bucket: this.location.bucket, Key: this.keyOf(key) }),
      );
      return { size: answer.ContentLength ?? 0 };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async read(key: string, range?: ByteRange): Promise<Readable | null> {
    if (range) checkRange(range);
    const command = new this.sdk.GetObjectCommand({
      Bucket: this.location.bucket,
      Key: this.keyOf(key),
      Range: range ? `bytes=${range.start}-${range.end}` : undefined,
    });
    try {
      const answer = await this.client.send(command);
      if (answer.Body instanceof Readable) return answer.Body;
      throw new Error('Storage: the S3 client answered a body that is not a Node stream');
    } catch (error) {
      if (isNotFound(error)) return null;
      // A range that starts past the end: no bytes, as a file's read stream gives.
      if (httpStatus(error) === 416) return (await this.head(key)) ? Readable.from([]) : null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new this.sdk.DeleteObjectCommand({ Bucket: this.location.bucket, Key: this.keyOf(key) }));
  }

  async deletePrefix(prefix: string): Promise<void> {
    checkKey(prefix, 'prefix');
    const Bucket = this.location.bucket;
    let ContinuationToken: string | undefined;
    do {
      const page = await this.client.send(
        new this.sdk.ListObjectsV2Command({ Bucket, Prefix: this.location.prefix + prefix, ContinuationToken }),
      );
      const Objects = (page.Contents ?? []).flatMap((object) => (object.Key ? [{ Key: object.Key }] : []));
      // A page holds at most 1000 keys, as many as one DeleteObjects takes.
      if (Objects.length > 0) {
        const answer = await this.client.send(new this.sdk.DeleteObjectsCommand({ Bucket, Delete: { Objects, Quiet: true } }));
        const failed = answer.Errors?.[0];
        if (failed)
          throw new Error(`Storage: could not delete ${failed.Key ?? '?'}: ${failed.Code ?? ''} ${failed.Message ?? ''}`);
      }
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
  }

  async close(): Promise<void> {
    this.client.destroy();
    return Promise.resolve();
  }

  private keyOf(key: string): string {
    checkKey(key);
    return this.location.prefix + key;
  }
}

function httpStatus(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
}

function isNotFound(error: unknown): boolean {
  const name = (error as { name?: string }).name;
  return name === 'NotFound' || name === 'NoSuchKey' || httpStatus(error) === 404;
}
