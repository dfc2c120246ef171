// The image transform a request's query asks for (docs/media.md, "Serving"): `w`, `h`, `fit`, `format`, `q`, checked
// and normalised so that two URLs asking for the same image make the same variant.
import { ServiceError } from '../domain/errors.js';

export const TRANSFORM_FITS = ['cover', 'contain', 'inside'] as const;
export type TransformFit = (typeof TRANSFORM_FITS)[number];

/** The formats a variant can be asked for by name. */
export const OUTPUT_FORMATS = ['webp', 'avif', 'jpeg', 'png'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

const FORMAT_VALUES = [...OUTPUT_FORMATS, 'auto'] as const;

export const MAX_TRANSFORM_SIZE = 4000;
export const DEFAULT_QUALITY = 80;

/** A checked transform. `width`/`height` null: not constrained. `format` 'original': the original's format. */
export interface TransformRequest {
  width: number | null;
  height: number | null;
  fit: TransformFit;
  format: OutputFormat | 'original';
  quality: number;
  /** `format=auto`: the answer depends on the Accept header, so the reply must carry `Vary: Accept`. */
  variesByAccept: boolean;
}

/** A bad transform parameter: a 400 naming it (`w: expected an integer from 1 to 4000`). */
export class TransformParamError extends ServiceError {
  constructor(
    readonly param: string,
    readonly reason: string,
  ) {
    super('BAD_USER_INPUT', `${param}: ${reason}`, { field: param });
    this.name = 'TransformParamError';
  }
}

const TRANSFORM_PARAMS = ['w', 'h', 'fit', 'format', 'q'] as const;
/** Parameters of a signed URL (checked by the route), allowed beside a transform's. */
const SIGNATURE_PARAMS = ['expires', 'sig'];
const KNOWN_PARAMS = new Set<string>([...TRANSFORM_PARAMS, ...SIGNATURE_PARAMS]);

type Query = Record<string, string | string[] | undefined>;

/**
 * The transform `query` asks for, or null when it asks for none (the original is served). `accept` is the request's
 * Accept header, for `format=auto`. Throws TransformParamError on an unknown, repeated or bad parameter.
 */
export function parseTransform(query: Query, accept: string | undefined): TransformRequest | null {
  const values = new Map<string, string>();
  for (const [name, raw] of Object.entries(query)) {
    if (!KNOWN_PARAMS.has(name)) {
      throw new TransformParamError(name, `unknown parameter; expected one of ${TRANSFORM_PARAMS.join(', ')}`);
    }
    const value = single(name, raw);
    if (value !== undefined) values.set(name, value);
  }
  if (!TRANSFORM_PARAMS.some((name) => values.has(name))) return null;

  const format = optional(values, 'format', (value) => oneOf('format', value, FORMAT_VALUES)) ?? 'original';
  return {
    width: optional(values, 'w', (value) => integer('w', value, MAX_TRANSFORM_SIZE)) ?? null,
    height: optional(values, 'h', (value) => integer('h', value, MAX_TRANSFORM_SIZE)) ?? null,
    fit: optional(values, 'fit', (value) => oneOf('fit', value, TRANSFORM_FITS)) ?? 'cover',
    format: format === 'auto' ? negotiateFormat(accept) : format,
    quality: optional(values, 'q', (value) => integer('q', value, 100)) ?? DEFAULT_QUALITY,
    variesByAccept: format === 'auto',
  };
}

/** `format=auto`: the best format the Accept header names, else the original's. */
export function negotiateFormat(accept: string | undefined): OutputFormat | 'original' {
  const accepted = acceptedTypes(accept ?? '');
  if (accepted.has('image/avif')) return 'avif';
  if (accepted.has('image/webp')) return 'webp';
  return 'original';
}

/**
 * The media types an Accept header names explicitly with a quality above 0. Wildcards (`image/*`) do not count: a
 * browser sends them whatever it decodes, so only a named type says that it takes AVIF or WebP.
 */
function acceptedTypes(accept: string): Set<string> {
  const types = new Set<string>();
  for (const range of accept.split(',')) {
    const [type, ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    if (!type) continue;
    const quality = params.find((param) => /^q\s*=/.test(param));
    if (quality !== undefined && !(Number(quality.replace(/^q\s*=\s*/, '')) > 0)) continue;
    types.add(type);
  }
  return types;
}

function single(name: string, raw: string | string[] | undefined): string | undefined {
  if (!Array.isArray(raw)) return raw;
  if (raw.length > 1) throw new TransformParamError(name, 'given more than once');
  return raw[0];
}

function optional<T>(values: Map<string, string>, name: string, read: (value: string) => T): T | undefined {
  const value = values.get(name);
  return value === undefined ? undefined : read(value);
}

function integer(name: string, value: string, max: number): number {
  // At most as many digits as `max` (leading zeros aside), so that a very long string is not turned into a number.
  const digits = /^0*([0-9]{1,4})$/.exec(value)?.[1];
  const number = digits === undefined ? NaN : Number(digits);
  if (!(number >= 1 && number <= max)) throw new TransformParamError(name, `expected an integer from 1 to ${max}`);
  return number;
}

function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  const found = allowed.find((candidate) => candidate === value);
  if (found === undefined) throw new TransformParamError(name, `expected one of ${allowed.join(', ')}`);
  return found;
}
