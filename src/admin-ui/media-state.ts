// The media library in the admin application, without a DOM (docs/media.md): the Media page's search, type filter
// and page as the URL carries them, the texts of its grid, pager and detail panel, the thumbnail addresses, the focal
// point a click sets, the alt text and tags as the panel edits them, and a media field's value as the record form's
// picker keeps it (one id, or an ordered list of ids). page-media.ts renders the page, media-picker.ts the picker,
// media-api.ts sends the calls.
import { ACCEPTED_ASSET_TYPES, ASSET_TYPES, type AssetType, type FocalPoint } from '../shared/media.js';
import type { JsonValue } from './types.js';

export { ACCEPTED_ASSET_TYPES, ASSET_TYPES, type AssetType, type FocalPoint };

/** An asset as the admin application reads it (the GraphQL `Asset`). */
export interface Asset {
  id: string;
  filename: string;
  mimeType: string;
  type: string;
  size: number;
  width: number | null;
  height: number | null;
  /** Locale code → text. */
  alt: Record<string, string> | null;
  tags: string[];
  focalPoint: FocalPoint | null;
  access: string;
  url: string;
  usage: number;
  createdAt: string;
}

export interface AssetList {
  total: number;
  hasMore: boolean;
  items: Asset[];
}

/** Assets on a page of the Media page, and of the picker's dialog. */
export const MEDIA_PAGE_SIZE = 24;
/** The side of a thumbnail the grid asks the image transforms for, in pixels (shown at about half, for sharp screens). */
export const THUMB_SIZE = 240;

const TYPE_TEXT: Record<AssetType, string> = {
  image: 'Images',
  video: 'Videos',
  audio: 'Audio',
  document: 'Documents',
  other: 'Other files',
};

const KIND_TEXT: Record<AssetType, string> = {
  image: 'Image',
  video: 'Video',
  audio: 'Audio',
  document: 'Document',
  other: 'File',
};

export function isAssetType(value: unknown): value is AssetType {
  return typeof value === 'string' && (ASSET_TYPES as readonly string[]).includes(value);
}

/** An asset's kind for people: Image, Video, Audio, Document, File. */
export function kindText(type: string): string {
  return isAssetType(type) ? KIND_TEXT[type] : type;
}

/** The type filter's options: all, then one per type. */
export function typeFilterOptions(): { value: string; label: string }[] {
  return [{ value: '', label: 'All types' }, ...ASSET_TYPES.map((value) => ({ value, label: TYPE_TEXT[value] }))];
}

/**
 * The picker's type choices for a media field's `acceptedTypes`: none or empty, every type (and all); one, only it;
 * several, each of them (the list asks for one type at a time, so the first is chosen at first).
 */
export function pickerTypeOptions(accepted: readonly string[] | null | undefined): { value: string; label: string }[] {
  const kinds = (accepted ?? []).filter(isAssetType);
  if (kinds.length === 0) return typeFilterOptions();
  return kinds.map((value) => ({ value, label: TYPE_TEXT[value] }));
}

/** Whether a media field with `accepted` takes an asset of `type`. */
export function acceptsType(accepted: readonly string[] | null | undefined, type: string): boolean {
  return !accepted || accepted.length === 0 || accepted.includes(type);
}

/** The Media page's view: the search text, the type filter (null for all) and the offset. */
export interface MediaView {
  search: string;
  type: AssetType | null;
  offset: number;
}

export function parseMediaView(query: URLSearchParams): MediaView {
  const type = query.get('type');
  return {
    search: (query.get('search') ?? '').trim(),
    type: isAssetType(type) ? type : null,
    offset: Math.max(0, Math.floor(Number(query.get('offset'))) || 0),
  };
}

export const MEDIA_PATH = '#/media';

/** The address of the Media page with `next` applied to `view`. */
export function mediaHref(
  view: MediaView = { search: '', type: null, offset: 0 },
  next: { search?: string; type?: string | null; offset?: number } = {},
): string {
  const query = new URLSearchParams();
  const search = (next.search ?? view.search).trim();
  if (search) query.set('search', search);
  const type = next.type === undefined ? view.type : next.type;
  if (type) query.set('type', type);
  const offset = next.offset ?? view.offset;
  if (offset > 0) query.set('offset', String(offset));
  const text = query.toString();
  return `${MEDIA_PATH}${text ? `?${text}` : ''}`;
}

/** The pager's texts and targets for a page of `list` at `offset`. */
export function mediaPager(
  list: Pick<AssetList, 'total' | 'hasMore' | 'items'>,
  offset: number,
  pageSize = MEDIA_PAGE_SIZE,
): { status: string; previousOffset: number | null; nextOffset: number | null } {
  const first = list.items.length === 0 ? 0 : offset + 1;
  const last = offset + list.items.length;
  return {
    status: list.total === 0 ? 'No assets' : `${first}–${last} of ${list.total.toLocaleString('en-US')} assets`,
    previousOffset: offset > 0 ? Math.max(0, offset - pageSize) : null,
    nextOffset: list.hasMore ? offset + pageSize : null,
  };
}

/** The offset of the last page when `offset` is past the end of a non-empty list, else null. */
export function pastEndOffset(
  list: Pick<AssetList, 'total' | 'items'>,
  offset: number,
  pageSize = MEDIA_PAGE_SIZE,
): number | null {
  if (list.items.length > 0 || offset === 0 || list.total === 0) return null;
  return Math.floor((list.total - 1) / pageSize) * pageSize;
}

/** What the grid says when it has nothing. */
export function emptyMediaText(view: Pick<MediaView, 'search' | 'type'>): string {
  if (view.search || view.type) return 'No assets match.';
  return 'No assets yet. Drop files here or choose them with Upload files.';
}

/**
 * The address of an image's thumbnail: the asset's path (the page's own origin, which its content security policy
 * allows; the session cookie serves a private one) with a cover crop of `size`×`size` in the best format the
 * browser takes.
 */
export function thumbnailSrc(url: string, size = THUMB_SIZE): string {
  let path = url;
  try {
    path = new URL(url, 'http://localhost').pathname;
  } catch {
    // A path already.
  }
  return `${path}?w=${size}&h=${size}&fit=cover&format=auto`;
}

/** The address of the whole asset on the page's own origin. */
export function assetHref(url: string): string {
  try {
    const parsed = new URL(url, 'http://localhost');
    return `${parsed.pathname}${parsed.search}`;
  } catch {
    return url;
  }
}

/** The short label of a file that is not shown as an image: its extension (PDF, MP4), else its kind. */
export function fileBadge(asset: Pick<Asset, 'filename' | 'type'>): string {
  const match = /\.([A-Za-z0-9]{1,5})$/.exec(asset.filename);
  return match ? match[1]!.toUpperCase() : kindText(asset.type);
}

/** `Used by 3 records`. */
export function usageText(usage: number): string {
  if (usage === 0) return 'Not used by any record';
  return `Used by ${usage === 1 ? '1 record' : `${usage.toLocaleString('en-US')} records`}`;
}

/** The focal point of a click at (x, y) in a box of width × height: 0..1 from the top left, to 3 decimals. */
export function focalPointAt(x: number, y: number, width: number, height: number): FocalPoint {
  const part = (value: number, whole: number) =>
    whole > 0 ? Math.round(Math.min(1, Math.max(0, value / whole)) * 1000) / 1000 : 0.5;
  return { x: part(x, width), y: part(y, height) };
}

/** `x 0.25, y 0.6`, or the default for none. */
export function focalPointText(point: FocalPoint | null): string {
  if (!point) return 'Not set: crops keep the middle.';
  return `x ${point.x}, y ${point.y}`;
}

/** The alt text of `locale`, or ''. */
export function altText(alt: Record<string, string> | null | undefined, locale: string): string {
  return alt?.[locale] ?? '';
}

/** The alt of an asset with `locale`'s text replaced (or removed when empty); null when none is left. */
export function altWith(
  alt: Record<string, string> | null | undefined,
  locale: string,
  text: string,
): Record<string, string> | null {
  const next: Record<string, string> = { ...(alt ?? {}) };
  if (text.trim() === '') delete next[locale];
  else next[locale] = text;
  return Object.keys(next).length > 0 ? next : null;
}

/** `red, summer ,red` → `["red", "summer"]`. */
export function parseTags(text: string): string[] {
  const tags: string[] = [];
  for (const part of text.split(',')) {
    const tag = part.trim();
    if (tag !== '' && !tags.includes(tag)) tags.push(tag);
  }
  return tags;
}

export function tagsText(tags: readonly string[]): string {
  return tags.join(', ');
}

/** The server's CONFLICT for an asset records use, said for the page: `The asset is used by a record (model …).` */
export function stillUsedText(message: string): string {
  const text = message.replace(/^id: /, '').replace(/; delete with force: true to remove it from them$/, '');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

/** An upload's share done, 0..100, from the bytes sent. */
export function uploadPercent(loaded: number, total: number): number {
  if (total <= 0) return 0;
  return Math.min(100, Math.round((loaded / total) * 100));
}

/** The asset ids a media field's value holds, in order (a stored value of another shape: none). */
export function mediaIds(value: JsonValue | undefined): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((id): id is string => typeof id === 'string');
  return [];
}

/** A media field's value for the ids chosen: the first id, or the array; undefined for none. */
export function mediaValue(ids: readonly string[], multiple: boolean): JsonValue | undefined {
  if (ids.length === 0) return undefined;
  return multiple ? [...ids] : ids[0];
}

/** The ids after choosing `id`: a single field holds only it, a multiple one adds it at the end (once). */
export function withChosen(ids: readonly string[], id: string, multiple: boolean): string[] {
  if (!multiple) return [id];
  return ids.includes(id) ? [...ids] : [...ids, id];
}

/** The ids with the one at `index` moved by `delta` (kept in place at an end). */
export function moved(ids: readonly string[], index: number, delta: number): string[] {
  const target = index + delta;
  const next = [...ids];
  if (index < 0 || index >= ids.length || target < 0 || target >= ids.length) return next;
  [next[index], next[target]] = [next[target]!, next[index]!];
  return next;
}

/** Thumbnails a records table cell shows of a multiple media field; the rest are counted. */
export const CELL_THUMBS = 3;

/** The asset ids the records table shows for the media columns of a page (the first few of each cell). */
export function pageMediaIds(
  records: readonly { data: Record<string, JsonValue> }[],
  fields: readonly { key: string; type: string }[],
): string[] {
  const ids = new Set<string>();
  for (const field of fields) {
    if (field.type !== 'media') continue;
    for (const record of records) for (const id of mediaIds(record.data[field.key]).slice(0, CELL_THUMBS)) ids.add(id);
  }
  return [...ids];
}
