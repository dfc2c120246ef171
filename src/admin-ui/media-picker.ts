// The form input of a media field (record-fields.ts builds it, docs/media.md): the chosen assets as thumbnails, each
// with Remove (and, for a field of several, ↑ ↓ to order them), and Choose…, a dialog that lists the library's assets
// of the field's accepted types, searched and paged, where a click chooses one and a file can be uploaded (it is then
// chosen). The value is the asset id, or the ordered array of ids.
import { h, uid } from './dom.js';
import { assetsById, listAssets, uploadAsset } from './media-api.js';
import { acceptsType, kindText, mediaIds, mediaValue, moved, pickerTypeOptions, withChosen, type Asset } from './media-state.js';
import { assetGrid, assetPager, thumbnail, uploadArea } from './media-views.js';
import type { Widget, WidgetArgs } from './record-fields.js';
import { alertBox, announce, button, errorText, group, input, select } from './ui.js';

const UPLOAD_ACCEPT: Record<string, string> = {
  image: 'image/*',
  video: 'video/*',
  audio: 'audio/*',
  document: 'application/pdf',
};

interface PickerState {
  ids: string[];
  known: Map<string, Asset | null>;
  multiple: boolean;
  accepted: readonly string[];
  label: string;
  disabled: boolean;
  /** Draws the chosen list again and tells the form that the value changed. */
  changed(): void;
}

function acceptText(accepted: readonly string[]): string {
  return accepted.length === 0 ? 'any file' : accepted.map((kind) => kindText(kind).toLowerCase()).join(', ');
}

function chosenItem(state: PickerState, id: string, index: number): HTMLElement {
  const asset = state.known.get(id);
  const name = asset ? asset.filename : state.known.has(id) ? `${id} (not found)` : id;
  const tools = state.disabled
    ? null
    : [
        state.multiple
          ? [
              button('↑', () => move(state, index, -1), { disabled: index === 0, 'aria-label': `Move ${name} up` }),
              button('↓', () => move(state, index, 1), {
                disabled: index === state.ids.length - 1,
                'aria-label': `Move ${name} down`,
              }),
            ]
          : null,
        button(
          'Remove',
          () => {
            state.ids = state.ids.filter((other) => other !== id);
            state.changed();
            announce(`${name} removed from ${state.label}.`);
          },
          { class: 'button button-danger', 'aria-label': `Remove ${name} from ${state.label}` },
        ),
      ];
  return h(
    'li',
    { class: 'media-chosen-item', 'data-asset-id': id },
    asset ? thumbnail(asset, 160) : h('span', { class: 'media-thumb media-file' }, h('span', { class: 'media-file-badge' }, '?')),
    h('span', { class: 'media-name' }, name),
    h('span', { class: 'media-chosen-tools' }, tools),
  );
}

function move(state: PickerState, index: number, delta: number): void {
  state.ids = moved(state.ids, index, delta);
  state.changed();
}

/** The dialog of the library: search, type, the grid (a click chooses), pages, an upload. */
function openChooser(state: PickerState, returnFocus: HTMLElement): void {
  const titleId = uid('dialog-title');
  const typeOptions = pickerTypeOptions(state.accepted);
  const search = input({ type: 'search', 'aria-label': 'Search assets', placeholder: 'Filename, tag or alt text' });
  const type = select(typeOptions, typeOptions[0]!.value, { 'aria-label': 'Type' });
  const gridArea = h('div', { class: 'media-grid-area' });
  const pagerArea = h('div');
  const status = h('div', { 'aria-live': 'polite' });
  let offset = 0;
  const load = async () => {
    status.replaceChildren(h('p', { class: 'muted small' }, 'Loading…'));
    try {
      const list = await listAssets({ search: search.value.trim(), type: type.value || null, offset });
      for (const asset of list.items) state.known.set(asset.id, asset);
      status.replaceChildren();
      gridArea.replaceChildren(
        list.items.length === 0
          ? h('p', { class: 'empty' }, 'No assets match.')
          : assetGrid(list.items, (asset) => choose(asset), null),
      );
      for (const card of gridArea.querySelectorAll<HTMLElement>('.media-card')) {
        if (state.ids.includes(card.dataset.assetId ?? '')) card.setAttribute('aria-pressed', 'true');
      }
      pagerArea.replaceChildren(
        list.total > 0
          ? assetPager(list, offset, {
              onPage: (next) => {
                offset = next;
                void load();
              },
            })
          : '',
      );
    } catch (error) {
      status.replaceChildren(alertBox(errorText(error), { title: 'The assets could not be read.' }));
    }
  };
  const choose = (asset: Asset) => {
    if (!acceptsType(state.accepted, asset.type)) {
      status.replaceChildren(alertBox(`${state.label} takes ${acceptText(state.accepted)}, not ${asset.filename}.`));
      return;
    }
    state.known.set(asset.id, asset);
    state.ids = withChosen(state.ids, asset.id, state.multiple);
    state.changed();
    announce(`${asset.filename} chosen for ${state.label}.`);
    if (state.multiple) gridArea.querySelector(`[data-asset-id="${asset.id}"]`)?.setAttribute('aria-pressed', 'true');
    else dialog.close();
  };
  const accept = state.accepted
    .map((kind) => UPLOAD_ACCEPT[kind])
    .filter(Boolean)
    .join(',');
  const dialog: HTMLDialogElement = h(
    'dialog',
    { class: 'dialog media-dialog', 'aria-labelledby': titleId },
    h('h2', { id: titleId }, `Choose for ${state.label}`),
    h('p', { class: 'hint' }, `Takes ${acceptText(state.accepted)}${state.multiple ? '; choose several, in order' : ''}.`),
    h(
      'form',
      {
        class: 'filter-bar media-filter',
        role: 'search',
        onsubmit: (event: Event) => {
          event.preventDefault();
          offset = 0;
          void load();
        },
      },
      search,
      typeOptions.length > 1 ? type : null,
      h('button', { type: 'submit', class: 'button' }, 'Search'),
    ),
    status,
    gridArea,
    pagerArea,
    uploadArea({
      upload: uploadAsset,
      ...(accept ? { accept } : {}),
      onUploaded: (asset) => {
        offset = 0;
        void load().then(() => choose(asset));
      },
    }),
    h(
      'div',
      { class: 'dialog-actions' },
      button(state.multiple ? 'Done' : 'Cancel', () => {
        dialog.close();
      }),
    ),
  );
  type.addEventListener('change', () => {
    offset = 0;
    void load();
  });
  dialog.addEventListener('close', () => {
    dialog.remove();
    returnFocus.focus();
  });
  document.body.append(dialog);
  dialog.showModal();
  search.focus();
  void load();
}

export function mediaWidget({ field, initial, ctx, options }: WidgetArgs): Widget {
  const multiple = field.multiple === true;
  const list = h('ul', { class: 'media-chosen plain-list' });
  const state: PickerState = {
    ids: multiple ? mediaIds(initial) : mediaIds(initial).slice(0, 1),
    known: new Map(),
    multiple,
    accepted: field.acceptedTypes ?? [],
    label: field.label,
    disabled: ctx.disabled,
    changed: () => {
      draw();
      list.dispatchEvent(new Event('change', { bubbles: true }));
    },
  };
  const draw = () => {
    list.replaceChildren(
      ...state.ids.map((id, index) => chosenItem(state, id, index)),
      state.ids.length === 0 ? h('li', { class: 'muted small' }, 'None chosen.') : '',
    );
  };
  const choose: HTMLButtonElement = button('Choose…', () => openChooser(state, choose), {
    disabled: ctx.disabled,
    'aria-label': `Choose ${multiple ? 'assets' : 'an asset'} for ${field.label}`,
  });
  draw();
  if (state.ids.length > 0) {
    void assetsById(state.ids)
      .then((found) => {
        for (const [id, asset] of found) state.known.set(id, asset);
        draw();
      })
      .catch(() => undefined);
  }
  const hint = `${multiple ? 'Assets' : 'An asset'} of the Media library: ${acceptText(state.accepted)}.`;
  const row = group(field.label, [list, h('div', { class: 'picker-tools' }, choose)], {
    ...options,
    hint,
    className: 'media-field',
  });
  return {
    row,
    read: () => ({ value: mediaValue(state.ids, multiple) }),
  };
}
