// Where assets' bytes are kept (docs/media.md): a local directory or an S3-compatible bucket, behind one interface.
// Keys are made by the service only (never from a filename): `<workspaceId>/<sha256>` for an asset's content,
// `<workspaceId>/variants/<sha256>/<variant>` for the transforms made of it.
import type { Readable } from 'node:stream';

/** A byte range, both ends included (as in an HTTP Range header). */
export interface ByteRange {
  start: number;
  end: number;
}

export interface StoredObject {
  size: number;
}

export interface Storage {
  /** `file:<dir>` or `s3://bucket/prefix?…`: what the service was started with, for its banner and docs. */
  readonly description: string;
  /**
   * Stores the file at `path` (a local file the caller owns and removes) under `key`. Content under a key never
   * changes, so a key that exists already is left as it is.
   */
  putFile(key: string, path: string, contentType: string): Promise<void>;
  /** Stores `bytes` under `key` (variants: small, made in memory). */
  putBytes(key: string, bytes: Buffer, contentType: string): Promise<void>;
  /** The object's size, or null when there is none under `key`. */
  head(key: string): Promise<StoredObject | null>;
  /** The object's bytes (the range only, when given), or null when there is none. */
  read(key: string, range?: ByteRange): Promise<Readable | null>;
  /** Removes the object (nothing when there is none). */
  delete(key: string): Promise<void>;
  /** Removes every object whose key starts with `prefix` (a variant folder). */
  deletePrefix(prefix: string): Promise<void>;
  close(): Promise<void>;
}

/** The key of an asset's content. */
export function contentKey(workspaceId: string, sha256: string): string {
  return `${workspaceId}/${sha256}`;
}

/** The folder of the variants made of a content. */
export function variantPrefix(workspaceId: string, sha256: string): string {
  return `${workspaceId}/variants/${sha256}/`;
}
