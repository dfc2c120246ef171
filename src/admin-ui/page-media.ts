// Media: the workspace's assets (docs/media.md) as a grid of thumbnails, newest first, searched (filename, tags, alt
// text) and filtered by type, paged by the server; files dropped on the page or chosen with Upload files go up one by
// one with a progress bar each. A click on an asset opens its panel (media-detail.ts): alt text, tags, access, the
// focal point, where it is used, Delete. Search, type and page are kept in the address.
// The page's state is media-state.ts, its calls media-api.ts, its views media-views.ts.
import { h, replaceChildren } from './dom.js';
import { focusKey, returnFocusTo } from './focus-return.js';
import { listAssets, loadDefaultLocale, uploadAsset } from './media-api.js';
import { assetDetail } from './media-detail.js';
import {
  emptyMediaText,
  mediaHref,
  parseMediaView,
  pastEndOffset,
  typeFilterOptions,
  type Asset,
  type AssetList,
  type MediaView,
} from './media-state.js';
import { assetGrid, assetPager, uploadArea } from './media-views.js';
import type { PageContext } from './page.js';
import { mayWriteRecords } from './types.js';
import { announce, errorArea, input, pageHeader, select, type ErrorArea } from './ui.js';

interface MediaPage {
  ctx: PageContext;
  view: MediaView;
  canWrite: boolean;
  defaultLocale: string;
  errors: ErrorArea;
  gridArea: HTMLElement;
  pagerArea: HTMLElement;
  detailArea: HTMLElement;
  list: AssetList;
  selected: string | null;
}

function filterBar(page: MediaPage): HTMLElement {
  const { ctx, view } = page;
  const search = focusKey(
    input({
      type: 'search',
      id: 'media-search',
      value: view.search,
      placeholder: 'Filename, tag or alt text',
      autocomplete: 'off',
    }),
    'media-search',
  ) as HTMLInputElement;
  const type = focusKey(
    select(typeFilterOptions(), view.type ?? '', {
      id: 'media-type',
      onchange: () => {
        returnFocusTo('media-type');
        ctx.navigate(mediaHref(view, { search: search.value, type: type.value || null, offset: 0 }));
      },
    }),
    'media-type',
  ) as HTMLSelectElement;
  return h(
    'form',
    {
      class: 'filter-bar media-filter',
      role: 'search',
      onsubmit: (event: Event) => {
        event.preventDefault();
        returnFocusTo('media-search');
        ctx.navigate(mediaHref(view, { search: search.value, offset: 0 }));
      },
    },
    h('label', { for: 'media-search' }, 'Search'),
    search,
    h('label', { for: 'media-type' }, 'Type'),
    type,
    h('button', { type: 'submit', class: 'button' }, 'Search'),
  );
}

function closeDetail(page: MediaPage, focusId: string | null): void {
  page.selected = null;
  page.detailArea.replaceChildren();
  page.detailArea.hidden = true;
  drawGrid(page);
  if (focusId) page.gridArea.querySelector<HTMLElement>(`[data-asset-id="${focusId}"]`)?.focus();
}

function openDetail(page: MediaPage, asset: Asset): void {
  page.selected = asset.id;
  page.detailArea.hidden = false;
  page.detailArea.replaceChildren(
    assetDetail({
      asset,
      defaultLocale: page.defaultLocale,
      canWrite: page.canWrite,
      onSaved: (updated) => {
        page.list = { ...page.list, items: page.list.items.map((item) => (item.id === updated.id ? updated : item)) };
        drawGrid(page);
        announce(`${updated.filename} saved.`);
      },
      onDeleted: (deleted) => {
        page.errors.clear();
        page.list = { ...page.list, items: page.list.items.filter((item) => item.id !== deleted.id) };
        closeDetail(page, null);
        page.ctx.main.querySelector<HTMLElement>('h1')?.focus();
        void reload(page).catch((error: unknown) => page.errors.show(error, 'The assets could not be read.'));
      },
      onClose: () => closeDetail(page, asset.id),
    }),
  );
  drawGrid(page);
  page.detailArea.querySelector<HTMLElement>('h2')?.focus();
}

function drawGrid(page: MediaPage): void {
  const { list, view } = page;
  page.gridArea.replaceChildren(
    list.items.length === 0
      ? h('p', { class: 'empty' }, emptyMediaText(view))
      : assetGrid(list.items, (asset) => openDetail(page, asset), page.selected),
  );
  page.pagerArea.replaceChildren(
    list.total > 0 ? assetPager(list, view.offset, { hrefFor: (offset) => mediaHref(view, { offset }) }) : '',
  );
}

/** Reads the page of assets again; false when it is past the end (and gave way to the last page). */
async function reload(page: MediaPage): Promise<boolean> {
  const list = await listAssets(page.view);
  if (!page.ctx.isCurrent()) return true;
  const lastPage = pastEndOffset(list, page.view.offset);
  if (lastPage !== null) {
    page.ctx.redirect(mediaHref(page.view, { offset: lastPage }));
    return false;
  }
  page.list = list;
  drawGrid(page);
  return true;
}

export async function renderMedia(ctx: PageContext): Promise<void> {
  ctx.setTitle('Media');
  const view = parseMediaView(ctx.query);
  const [list, defaultLocale] = await Promise.all([listAssets(view), loadDefaultLocale()]);
  if (!ctx.isCurrent()) return;
  const lastPage = pastEndOffset(list, view.offset);
  if (lastPage !== null) {
    ctx.redirect(mediaHref(view, { offset: lastPage }));
    return;
  }
  const page: MediaPage = {
    ctx,
    view,
    canWrite: mayWriteRecords(ctx.workspace.role),
    defaultLocale,
    errors: errorArea(),
    gridArea: h('div', { class: 'media-grid-area' }),
    pagerArea: h('div'),
    detailArea: h('div', { class: 'media-detail-area', hidden: true }),
    list,
    selected: null,
  };
  drawGrid(page);
  const upload = page.canWrite
    ? uploadArea({
        inputId: 'media-upload-input',
        upload: uploadAsset,
        onUploaded: (asset) => {
          announce(`${asset.filename} uploaded.`);
          // The new asset is first in the default order: the first page without a search shows it.
          void reload(page).catch((error: unknown) => page.errors.show(error, 'The assets could not be read.'));
        },
      })
    : null;
  replaceChildren(
    ctx.main,
    pageHeader('Media'),
    h(
      'p',
      { class: 'muted' },
      'Images and files of the workspace, newest first. Records hold them in their media fields; the delivery API serves them at their address, images in any size (?w=, ?h=).',
    ),
    page.errors.element,
    upload,
    filterBar(page),
    h('div', { class: 'media-layout' }, h('div', { class: 'media-main' }, page.gridArea, page.pagerArea), page.detailArea),
  );
}
