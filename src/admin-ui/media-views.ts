// The media library's views, built from its state (media-state.ts): an asset's thumbnail (an image through the
// image transforms; another file as its kind and name), the grid of assets and its pager, and the upload area (drop
// files, or choose them) with a progress bar per file. The Media page (page-media.ts) and the record form's picker
// (media-picker.ts) both use them.
import { h, type Child } from './dom.js';
import type { Upload } from './media-api.js';
import { fileBadge, kindText, mediaPager, thumbnailSrc, uploadPercent, type Asset, type AssetList } from './media-state.js';
import { button, linkButton } from './ui.js';
import { formatBytes } from './values.js';

/** An image's thumbnail (cropped square), or a tile with the file's kind for other files. */
export function thumbnail(asset: Pick<Asset, 'url' | 'type' | 'filename' | 'alt'>, size?: number): HTMLElement {
  if (asset.type === 'image') {
    const alt = Object.values(asset.alt ?? {})[0] ?? '';
    return h('img', {
      class: 'media-thumb',
      src: thumbnailSrc(asset.url, size),
      alt,
      loading: 'lazy',
      decoding: 'async',
      draggable: 'false',
    });
  }
  return h(
    'span',
    { class: `media-thumb media-file media-file-${asset.type}`, 'aria-hidden': 'true' },
    h('span', { class: 'media-file-badge' }, fileBadge(asset)),
  );
}

/** One asset of the grid: a button with its thumbnail, name and kind, that opens it. */
export function assetCard(asset: Asset, onOpen: (asset: Asset, card: HTMLButtonElement) => void, selected = false) {
  const card: HTMLButtonElement = h(
    'button',
    {
      type: 'button',
      class: `media-card${selected ? ' selected' : ''}`,
      'data-asset-id': asset.id,
      'aria-pressed': selected ? 'true' : 'false',
      'aria-label': `${asset.filename} (${kindText(asset.type).toLowerCase()}${asset.access === 'private' ? ', private' : ''})`,
      onclick: () => onOpen(asset, card),
    },
    thumbnail(asset),
    h('span', { class: 'media-name' }, asset.filename),
    h(
      'span',
      { class: 'media-facts' },
      kindText(asset.type),
      asset.width && asset.height ? ` · ${asset.width}×${asset.height}` : '',
      ` · ${formatBytes(asset.size)}`,
      asset.access === 'private' ? h('span', { class: 'media-private' }, ' · private') : null,
    ),
  );
  return card;
}

export function assetGrid(
  assets: readonly Asset[],
  onOpen: (asset: Asset, card: HTMLButtonElement) => void,
  selectedId: string | null = null,
): HTMLElement {
  return h(
    'ul',
    { class: 'media-grid', 'aria-label': 'Assets' },
    assets.map((asset) => h('li', null, assetCard(asset, onOpen, asset.id === selectedId))),
  );
}

/** The pager of a page of assets: links when `hrefFor` is given (the Media page), else buttons (the picker). */
export function assetPager(
  list: AssetList,
  offset: number,
  go: { hrefFor?: (offset: number) => string; onPage?: (offset: number) => void },
): HTMLElement {
  const pager = mediaPager(list, offset);
  const control = (label: string, target: number | null, rel: string): Child => {
    if (target === null) return h('span', { class: 'button', 'aria-disabled': 'true' }, label);
    if (go.hrefFor) return linkButton(label, go.hrefFor(target), { rel });
    return button(label, () => go.onPage?.(target));
  };
  return h(
    'nav',
    { class: 'pager', 'aria-label': 'Asset pages' },
    h('p', { class: 'pager-status' }, pager.status),
    h(
      'div',
      { class: 'pager-controls' },
      control('Previous page', pager.previousOffset, 'prev'),
      control('Next page', pager.nextOffset, 'next'),
    ),
  );
}

export interface UploadAreaOptions {
  /** Starts one file's upload (media-api.ts uploadAsset). */
  upload(file: File, onProgress: (loaded: number, total: number) => void): Upload;
  /** After each finished upload. */
  onUploaded(asset: Asset): void;
  /** Shown in the input's `accept` (the picker of an images-only field: `image/*`). */
  accept?: string;
  /** The input's id, for a label elsewhere and the tests. */
  inputId?: string;
}

function progressRow(file: File, list: HTMLElement) {
  const bar = h('progress', { max: 100, value: 0, 'aria-label': `Uploading ${file.name}` });
  const state = h('span', { class: 'upload-state small muted' }, '0%');
  const row = h(
    'li',
    { class: 'upload-row', 'data-file': file.name },
    h('span', { class: 'upload-name' }, file.name),
    bar,
    state,
  );
  list.append(row);
  return {
    progress(loaded: number, total: number) {
      const percent = uploadPercent(loaded, total);
      bar.value = percent;
      state.textContent = `${percent}%`;
    },
    finish(error: string | null) {
      row.classList.add(error ? 'upload-failed' : 'upload-done');
      if (!error) bar.value = 100;
      bar.setAttribute('aria-label', `${error ? 'Failed' : 'Uploaded'}: ${file.name}`);
      state.textContent = error ?? 'Uploaded';
      state.className = `upload-state small ${error ? 'field-error' : 'muted'}`;
    },
  };
}

/** The drop zone and its Upload files button; each file gets a row with a progress bar while it goes. */
export function uploadArea(options: UploadAreaOptions): HTMLElement {
  const list = h('ul', { class: 'upload-list plain-list', 'aria-live': 'polite' });
  const start = (files: Iterable<File>) => {
    for (const file of files) {
      const row = progressRow(file, list);
      options
        .upload(file, (loaded, total) => row.progress(loaded, total))
        .done.then((asset) => {
          row.finish(null);
          options.onUploaded(asset);
        })
        .catch((error: unknown) => row.finish(error instanceof Error ? error.message : String(error)));
    }
  };
  const fileInput = h('input', {
    type: 'file',
    multiple: true,
    class: 'visually-hidden',
    id: options.inputId ?? null,
    accept: options.accept ?? null,
    tabindex: '-1',
    'aria-label': 'Upload files',
    onchange: () => {
      start([...(fileInput.files ?? [])]);
      fileInput.value = '';
    },
  });
  const zone: HTMLDivElement = h(
    'div',
    {
      class: 'media-drop',
      ondragover: (event: DragEvent) => {
        event.preventDefault();
        zone.classList.add('dragging');
      },
      ondragleave: () => {
        zone.classList.remove('dragging');
      },
      ondrop: (event: DragEvent) => {
        event.preventDefault();
        zone.classList.remove('dragging');
        start([...(event.dataTransfer?.files ?? [])]);
      },
    },
    h('p', null, 'Drop files here, or '),
    button('Upload files', () => fileInput.click(), { class: 'button button-primary' }),
    fileInput,
  );
  return h('div', { class: 'media-upload' }, zone, list);
}
