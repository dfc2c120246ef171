// The Media page's asset panel (docs/media.md): the preview, where a click sets the focal point (a marker shows
// it; two number inputs say it for the keyboard), the alt text of the workspace's default locale, the tags, public
// or private, how many records use the asset, and Delete: refused while records use it, with the server's message
// and Delete anyway (force), which removes it from them.
import { ApiError } from './api.js';
import { h, uid } from './dom.js';
import { deleteAsset, updateAsset } from './media-api.js';
import {
  altText,
  altWith,
  assetHref,
  focalPointAt,
  focalPointText,
  kindText,
  parseTags,
  stillUsedText,
  tagsText,
  usageText,
  type Asset,
  type FocalPoint,
} from './media-state.js';
import { thumbnail } from './media-views.js';
import { alertBox, announce, button, confirmDialog, errorArea, group, input, labelled, noticeBox, select } from './ui.js';
import { formatBytes, formatDateTime } from './values.js';

export interface DetailOptions {
  asset: Asset;
  defaultLocale: string;
  canWrite: boolean;
  /** After a save: the asset as it is now. */
  onSaved(asset: Asset): void;
  /** After a delete. */
  onDeleted(asset: Asset): void;
  onClose(): void;
}

const PREVIEW = 'w=640&h=640&fit=inside&format=auto';

/** The preview with its focal point marker; `onPick` hears a click's point. */
function focalPreview(asset: Asset, point: () => FocalPoint | null, onPick: ((point: FocalPoint) => void) | null) {
  const marker = h('span', { class: 'focal-marker', 'aria-hidden': 'true' });
  const place = () => {
    const current = point();
    marker.hidden = current === null;
    if (current) {
      marker.style.left = `${current.x * 100}%`;
      marker.style.top = `${current.y * 100}%`;
    }
  };
  const image = h('img', {
    class: 'focal-image',
    src: `${assetHref(asset.url).split('?')[0]}?${PREVIEW}`,
    alt: altText(asset.alt, Object.keys(asset.alt ?? {})[0] ?? '') || asset.filename,
    draggable: 'false',
  });
  if (onPick) {
    image.addEventListener('click', (event: MouseEvent) => {
      const box = image.getBoundingClientRect();
      onPick(focalPointAt(event.clientX - box.left, event.clientY - box.top, box.width, box.height));
    });
  }
  const wrap = h('div', { class: `focal-preview${onPick ? ' editable' : ''}` }, image, marker);
  place();
  return { element: wrap, place };
}

function facts(asset: Asset): HTMLElement {
  return h(
    'dl',
    { class: 'meta media-meta' },
    h('dt', null, 'Kind'),
    h('dd', null, `${kindText(asset.type)} (${asset.mimeType})`),
    h('dt', null, 'Size'),
    h('dd', null, formatBytes(asset.size), asset.width && asset.height ? `, ${asset.width}×${asset.height} px` : ''),
    h('dt', null, 'Uploaded'),
    h('dd', null, formatDateTime(asset.createdAt)),
    h('dt', null, 'Used'),
    h('dd', { class: 'media-usage' }, usageText(asset.usage)),
  );
}

/** The focal point's inputs (0..1) and what the preview shows: one state for both. */
function focalControls(asset: Asset, canWrite: boolean) {
  let point: FocalPoint | null = asset.focalPoint;
  const xInput = input({ type: 'number', min: 0, max: 1, step: 0.001, inputmode: 'decimal', disabled: !canWrite });
  const yInput = input({ type: 'number', min: 0, max: 1, step: 0.001, inputmode: 'decimal', disabled: !canWrite });
  const text = h('p', { class: 'hint focal-text', 'aria-live': 'polite' });
  const show = () => {
    xInput.value = point ? String(point.x) : '';
    yInput.value = point ? String(point.y) : '';
    text.textContent = `Focal point: ${focalPointText(point)}`;
    preview?.place();
  };
  const preview =
    asset.type === 'image'
      ? focalPreview(
          asset,
          () => point,
          canWrite
            ? (picked) => {
                point = picked;
                show();
              }
            : null,
        )
      : null;
  const typed = () => {
    const x = Number(xInput.value);
    const y = Number(yInput.value);
    if (xInput.value === '' && yInput.value === '') point = null;
    else if (Number.isFinite(x) && Number.isFinite(y)) point = { x: Math.min(1, Math.max(0, x)), y: Math.min(1, Math.max(0, y)) };
    text.textContent = `Focal point: ${focalPointText(point)}`;
    preview?.place();
  };
  xInput.addEventListener('input', typed);
  yInput.addEventListener('input', typed);
  show();
  const row =
    asset.type === 'image'
      ? group(
          'Focal point',
          [
            h(
              'div',
              { class: 'inline-inputs' },
              labelled('x', xInput, { className: 'focal-input' }).element,
              labelled('y', yInput, { className: 'focal-input' }).element,
            ),
            text,
          ],
          canWrite ? { hint: 'Click the image where crops should keep it, or type 0 to 1 from the top left.' } : {},
        ).element
      : null;
  return { preview: preview?.element ?? thumbnail(asset), row, point: () => point };
}

async function remove(options: DetailOptions, area: HTMLElement, force: boolean): Promise<void> {
  const { asset } = options;
  area.replaceChildren();
  if (!force) {
    const confirmed = await confirmDialog({
      title: `Delete ${asset.filename}?`,
      message: h('p', null, `${usageText(asset.usage)}. Its file and its sizes are removed when no other asset holds them.`),
      confirmLabel: 'Delete asset',
      danger: true,
    });
    if (!confirmed) return;
  }
  try {
    await deleteAsset(asset.id, force);
    announce(`${asset.filename} deleted.`);
    options.onDeleted(asset);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'CONFLICT') {
      area.replaceChildren(
        alertBox(
          [
            h('p', null, stillUsedText(error.message)),
            button('Delete anyway', () => remove(options, area, true), { class: 'button button-danger' }),
            h('p', { class: 'hint' }, 'Delete anyway removes the asset from those records (each gets a new revision).'),
          ],
          { title: 'The asset was not deleted.' },
        ),
      );
      return;
    }
    area.replaceChildren(
      alertBox(error instanceof Error ? error.message : String(error), { title: 'The asset was not deleted.' }),
    );
  }
}

/** The panel of one asset; its heading takes the focus when it opens. */
export function assetDetail(options: DetailOptions): HTMLElement {
  const { asset, defaultLocale, canWrite } = options;
  const titleId = uid('asset-title');
  const errors = errorArea();
  const notices = h('div');
  const deleteArea = h('div', { class: 'media-delete-area' });
  const alt = input({ value: altText(asset.alt, defaultLocale), disabled: !canWrite, autocomplete: 'off' });
  const tags = input({ value: tagsText(asset.tags), disabled: !canWrite, autocomplete: 'off' });
  const access = select(
    [
      { value: 'public', label: 'Public: anyone with the address' },
      { value: 'private', label: 'Private: members, API tokens and signed URLs' },
    ],
    asset.access,
    { disabled: !canWrite },
  );
  const focal = focalControls(asset, canWrite);
  const save = h('button', { type: 'submit', class: 'button button-primary' }, 'Save changes');
  const form = h(
    'form',
    {
      class: 'media-form',
      novalidate: true,
      oninput: () => notices.replaceChildren(),
      onsubmit: async (event: Event) => {
        event.preventDefault();
        errors.clear();
        save.disabled = true;
        try {
          const updated = await updateAsset(asset.id, {
            alt: altWith(asset.alt, defaultLocale, alt.value),
            tags: parseTags(tags.value),
            access: access.value,
            focalPoint: focal.point(),
          });
          notices.replaceChildren(noticeBox('Saved.'));
          options.onSaved(updated);
        } catch (error) {
          errors.show(error, 'The asset was not saved.');
        } finally {
          save.disabled = false;
        }
      },
    },
    errors.element,
    notices,
    labelled(`Alt text (${defaultLocale})`, alt, { hint: 'What the image shows, for people who cannot see it.' }).element,
    labelled('Tags', tags, { hint: 'Separated by commas: red, summer.' }).element,
    labelled('Access', access).element,
    focal.row,
    canWrite ? h('div', { class: 'form-actions' }, save) : null,
  );
  return h(
    'aside',
    { class: 'media-detail', 'aria-labelledby': titleId, 'data-asset-id': asset.id },
    h(
      'div',
      { class: 'media-detail-head' },
      h('h2', { id: titleId, tabindex: '-1' }, asset.filename),
      button('Close', () => options.onClose(), { 'aria-label': `Close ${asset.filename}` }),
    ),
    focal.preview,
    h('p', null, h('a', { href: assetHref(asset.url), target: '_blank', rel: 'noopener' }, 'Open the file')),
    facts(asset),
    form,
    canWrite
      ? h(
          'div',
          { class: 'media-danger' },
          deleteArea,
          button('Delete asset', () => remove(options, deleteArea, false), { class: 'button button-danger' }),
        )
      : null,
  );
}
