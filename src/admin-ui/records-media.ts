// The records table's media cells (docs/media.md): the table has only asset ids, so the page reads the assets its
// media columns show by id (media-api.ts assetsById, one request per 25) before drawing it, and a cell shows small
// thumbnails of its images (another kind: its badge), the first few of a multiple field with how many more.
import { h } from './dom.js';
import { assetsById } from './media-api.js';
import { CELL_THUMBS, mediaIds, pageMediaIds, type Asset } from './media-state.js';
import { thumbnail } from './media-views.js';
import type { FieldDefinition, JsonValue, RecordPage } from './types.js';

export type AssetsById = ReadonlyMap<string, Asset | null>;

/** The assets the page's media columns show; none when the model has no media field or the read fails. */
export async function loadCellAssets(page: RecordPage, fields: readonly FieldDefinition[]): Promise<AssetsById> {
  const ids = pageMediaIds(page.items, fields);
  if (ids.length === 0) return new Map();
  try {
    return await assetsById(ids);
  } catch {
    // The cells then say how many assets they hold.
    return new Map();
  }
}

/** A media cell: thumbnails with the filenames as their titles; an id whose asset is gone, as the id. */
export function mediaCell(value: JsonValue | undefined, assets: AssetsById): HTMLElement {
  const ids = mediaIds(value);
  const shown = ids.slice(0, CELL_THUMBS);
  return h(
    'td',
    { class: 'media-cell' },
    shown.map((id) => {
      const asset = assets.get(id);
      if (!asset) return h('code', { class: 'small', title: asset === null ? 'Asset not found' : id }, id.slice(0, 8));
      return h('span', { class: 'media-cell-item', title: asset.filename }, thumbnail(asset, 96));
    }),
    ids.length > shown.length ? h('span', { class: 'small muted' }, ` +${ids.length - shown.length}`) : null,
  );
}
