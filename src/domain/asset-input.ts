// The checks of what a client says about an asset (docs/media.md): its filename, alt text, tags, focal point and
// access, at upload (multipart parts, tus metadata) and in `asset.update`. Each refusal names its field.
import { fieldError } from './errors.js';
import { LOCALE_PATTERN } from '../shared/field-types.js';
import { ASSET_ACCESS, ASSET_TYPES, type AssetAccess, type AssetType, type FocalPoint } from '../shared/media.js';
import { isPlainObject } from '../shared/json.js';
import { textProblem } from './text.js';

export const ASSET_LIMITS = {
  maxFilenameLength: 255,
  maxAltLength: 1000,
  maxTags: 50,
  maxTagLength: 64,
  maxSearchLength: 200,
} as const;

export const ASSET_SORTS = ['createdAt_desc', 'createdAt_asc', 'filename_asc', 'filename_desc', 'size_asc', 'size_desc'];

function refuse(path: string, reason: string): never {
  throw fieldError({ path, reason });
}

/**
 * The name an uploaded file is kept under: the client's name without any folder (a name is never a path here),
 * control characters and surrounding space; `file` when nothing is left.
 */
export function uploadFilename(given: string | null | undefined): string {
  const base = (given ?? '').split(/[/\\]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex -- control characters are what is removed
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return clean.slice(0, ASSET_LIMITS.maxFilenameLength) || 'file';
}

/** A new filename given by `asset.update`: refused rather than cleaned. */
export function checkFilename(value: unknown, path: string): string {
  if (typeof value !== 'string' || value.trim() === '') refuse(path, 'must be a non-empty string');
  if (value.length > ASSET_LIMITS.maxFilenameLength) refuse(path, `at most ${ASSET_LIMITS.maxFilenameLength} characters`);
  // eslint-disable-next-line no-control-regex -- control characters are refused
  if (/[/\\\u0000-\u001f\u007f]/.test(value)) refuse(path, 'must not contain "/", "\\" or control characters');
  return value.trim();
}

/** Alt text: locale → text, or a plain text for the workspace's default locale; null clears it. */
export function checkAlt(value: unknown, path: string, defaultLocale: string): Record<string, string> | null {
  if (value === null) return null;
  const texts = typeof value === 'string' ? { [defaultLocale]: value } : value;
  if (!isPlainObject(texts)) refuse(path, 'expected a text, or an object of locale code to text such as {"en":"A red ball"}');
  const alt: Record<string, string> = {};
  for (const [locale, text] of Object.entries(texts)) {
    if (!LOCALE_PATTERN.test(locale)) refuse(`${path}.${locale}`, 'is not a locale code (such as en, pl or pt-BR)');
    if (typeof text !== 'string') refuse(`${path}.${locale}`, 'expected a string');
    const problem = textProblem(text);
    if (problem) refuse(`${path}.${locale}`, problem);
    if (text.length > ASSET_LIMITS.maxAltLength) refuse(`${path}.${locale}`, `at most ${ASSET_LIMITS.maxAltLength} characters`);
    if (text !== '') alt[locale] = text;
  }
  return Object.keys(alt).length > 0 ? alt : null;
}

export function checkTags(value: unknown, path: string): string[] {
  if (!Array.isArray(value)) refuse(path, 'expected an array of strings');
  if (value.length > ASSET_LIMITS.maxTags) refuse(path, `at most ${ASSET_LIMITS.maxTags} tags`);
  const tags: string[] = [];
  value.forEach((tag, index) => {
    if (typeof tag !== 'string' || tag.trim() === '') refuse(`${path}.${index}`, 'must be a non-empty string');
    const problem = textProblem(tag);
    if (problem) refuse(`${path}.${index}`, problem);
    if (tag.length > ASSET_LIMITS.maxTagLength) refuse(`${path}.${index}`, `at most ${ASSET_LIMITS.maxTagLength} characters`);
    if (!tags.includes(tag.trim())) tags.push(tag.trim());
  });
  return tags;
}

export function checkFocalPoint(value: unknown, path: string): FocalPoint | null {
  if (value === null) return null;
  if (!isPlainObject(value)) refuse(path, 'expected {x, y} with both from 0 to 1');
  for (const axis of ['x', 'y'] as const) {
    const at = value[axis];
    if (typeof at !== 'number' || !(at >= 0 && at <= 1)) refuse(`${path}.${axis}`, 'expected a number from 0 to 1');
  }
  return { x: value.x as number, y: value.y as number };
}

export function checkAccess(value: unknown, path: string): AssetAccess {
  if (!(ASSET_ACCESS as readonly unknown[]).includes(value)) refuse(path, 'must be "public" or "private"');
  return value as AssetAccess;
}

export function checkAssetType(value: unknown, path: string): AssetType {
  if (!(ASSET_TYPES as readonly unknown[]).includes(value)) refuse(path, `must be one of ${ASSET_TYPES.join(', ')}`);
  return value as AssetType;
}

export function checkAssetSort(value: string | null | undefined): string {
  if (value === null || value === undefined) return 'createdAt_desc';
  if (!ASSET_SORTS.includes(value)) refuse('sort', `must be one of ${ASSET_SORTS.join(', ')}`);
  return value;
}

/** A signed URL's lifetime in seconds: 1 to 7 days. */
export function checkExpiresIn(value: number): number {
  if (!Number.isInteger(value) || value < 1 || value > 604_800) refuse('expiresIn', 'expected seconds from 1 to 604800');
  return value;
}
