// The type of an upload, from its content only (docs/media.md): a client's declared type is never trusted.
import { open } from 'node:fs/promises';
import { fileTypeFromBuffer, fileTypeFromFile } from 'file-type';
import type { AssetType } from '../shared/media.js';

export interface DetectedType {
  mimeType: string;
  type: AssetType;
}

export const OCTET_STREAM = 'application/octet-stream';
export const SVG_MIME_TYPE = 'image/svg+xml';

/** The MIME types the service recognises, and their kinds; anything else is `application/octet-stream`. */
const KNOWN_TYPES: ReadonlyMap<string, AssetType> = new Map([
  ['image/jpeg', 'image'],
  ['image/png', 'image'],
  ['image/webp', 'image'],
  ['image/avif', 'image'],
  ['image/gif', 'image'],
  [SVG_MIME_TYPE, 'image'],
  ['application/pdf', 'document'],
  ['video/mp4', 'video'],
  ['video/webm', 'video'],
  ['audio/mpeg', 'audio'],
  ['audio/ogg', 'audio'],
  ['audio/wav', 'audio'],
]);

/** Names file-type (or the world) uses for a type the service knows by another name. */
const ALIASES: ReadonlyMap<string, string> = new Map([
  ['audio/vnd.wave', 'audio/wav'],
  ['audio/x-wav', 'audio/wav'],
  ['audio/wave', 'audio/wav'],
  ['audio/opus', 'audio/ogg'],
  // An animated PNG is a PNG that every PNG decoder reads (its first frame).
  ['image/apng', 'image/png'],
]);

/** How much of a file is looked at for an SVG root. */
const SVG_SNIFF_BYTES = 4096;

/**
 * Raster signatures that declare an image even when file-type gives up on what follows (it reads a PNG's chunks, for
 * one): such a file is an image that cannot be decoded, refused as such, rather than an `other` file accepted.
 */
const IMAGE_SIGNATURES: readonly { mimeType: string; parts: readonly [at: number, latin1: string][] }[] = [
  { mimeType: 'image/png', parts: [[0, '\x89PNG\r\n\x1a\n']] },
  { mimeType: 'image/jpeg', parts: [[0, '\xff\xd8\xff']] },
  { mimeType: 'image/gif', parts: [[0, 'GIF87a']] },
  { mimeType: 'image/gif', parts: [[0, 'GIF89a']] },
  {
    mimeType: 'image/webp',
    parts: [
      [0, 'RIFF'],
      [8, 'WEBP'],
    ],
  },
];

/** The type of the file at `path`, or of a file that starts with `head`. */
export async function detectType(input: string | Uint8Array): Promise<DetectedType> {
  const found = typeof input === 'string' ? await fileTypeFromFile(input) : await fileTypeFromBuffer(input);
  const mimeType = found ? normalise(found.mime) : undefined;
  const type = mimeType === undefined ? undefined : KNOWN_TYPES.get(mimeType);
  if (mimeType !== undefined && type !== undefined) return { mimeType, type };
  const head = typeof input === 'string' ? await readHead(input, SVG_SNIFF_BYTES) : input.subarray(0, SVG_SNIFF_BYTES);
  const signed = found ? undefined : imageSignature(head);
  if (signed) return { mimeType: signed, type: 'image' };
  // file-type does not recognise SVG (at best it says application/xml): look for the root element ourselves.
  if (looksLikeSvg(head)) return { mimeType: SVG_MIME_TYPE, type: 'image' };
  return { mimeType: OCTET_STREAM, type: 'other' };
}

function imageSignature(head: Uint8Array): string | undefined {
  const bytes = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  const has = ([at, latin1]: readonly [number, string]) => bytes.toString('latin1', at, at + latin1.length) === latin1;
  return IMAGE_SIGNATURES.find(({ parts }) => parts.every(has))?.mimeType;
}

function normalise(mime: string): string {
  // 'audio/ogg; codecs=opus' is audio/ogg.
  const bare = mime.split(';')[0]!.trim().toLowerCase();
  return ALIASES.get(bare) ?? bare;
}

async function readHead(path: string, length: number): Promise<Uint8Array> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await file.read(buffer, 0, length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

/**
 * Whether the text starts (after an optional byte order mark, XML declaration, comments, processing instructions and
 * doctype) with an `<svg` element.
 */
export function looksLikeSvg(head: Uint8Array): boolean {
  let text = Buffer.from(head.buffer, head.byteOffset, head.byteLength).toString('utf8');
  if (text.startsWith('\uFEFF')) text = text.slice(1);
  const prolog = /^\s*(?:<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE(?:[^[>]|\[[\s\S]*?\])*>)/i;
  for (let match = prolog.exec(text); match !== null; match = prolog.exec(text)) text = text.slice(match[0].length);
  return /^\s*<svg[\s>/]/i.test(text) || /^\s*<[a-z][\w.-]*:svg[\s>/]/i.test(text);
}
