// The records of one model: a table paged by the server (limit and offset, `total` from the API), sorted by
// creation or update time, the display field first. One GraphQL request per page.
import { ApiError, gql } from './api.js';
import { h, replaceChildren } from './dom.js';
import { MODEL_SELECTION } from './models-cache.js';
import type { PageContext } from './page.js';
import { mayChangeModels, mayWriteRecords, type ModelDefinition, type ModelRecord, type RecordPage } from './types.js';
import { alertBox, announce, button, confirmDialog, errorArea, linkButton, pageHeader } from './ui.js';
import { displayFieldOf, preferredLocales, recordName } from './record-names.js';
import { cellText, formatDateTime } from './values.js';

export const SORTS = ['createdAt_desc', 'createdAt_asc', 'updatedAt_desc', 'updatedAt_asc'] as const;
export type Sort = (typeof SORTS)[number];
export const LIMITS = [20, 50, 100] as const;
const DEFAULT_LIMIT = 50;

/** Deletes a record after confirmation; offers force when other records still point at it. True when deleted. */
export async function deleteRecord(
  model: ModelDefinition,
  record: ModelRecord,
  onError: (error: unknown) => void,
): Promise<boolean> {
  const name = recordName(model, record);
  const confirmed = await confirmDialog({
    title: `Delete ${name}?`,
    message: h('p', null, `The record is deleted from ${model.name}. This cannot be undone.`),
    confirmLabel: 'Delete record',
    danger: true,
  });
  if (!confirmed) return false;
  const mutation =
    'mutation DeleteRecord($id: ID!, $force: Boolean) { record { delete(id: $id, force: $force) { id deleted } } }';
  try {
    await gql(mutation, { id: record.id, force: false });
    return true;
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'CONFLICT') {
      onError(error);
      return false;
    }
    const force = await confirmDialog({
      title: `${name} is still linked`,
      message: [
        h('p', null, error.message.replace(/^id: /, '').replace(/; delete with force: true to remove the references$/, '.')),
        h('p', null, 'Delete it anyway and remove those links from the other records?'),
      ],
      confirmLabel: 'Delete and remove links',
      danger: true,
    });
    if (!force) return false;
    try {
      await gql(mutation, { id: record.id, force: true });
      return true;
    } catch (forced) {
      onError(forced);
      return false;
    }
  }
}

export async function renderRecords(ctx: PageContext): Promise<void> {
  const modelId = ctx.params.modelId!;
  const sortParam = ctx.query.get('sort') ?? '';
  const sort: Sort = (SORTS as readonly string[]).includes(sortParam) ? (sortParam as Sort) : 'createdAt_desc';
  const limitParam = Number(ctx.query.get('limit'));
  const limit = (LIMITS as readonly number[]).includes(limitParam) ? limitParam : DEFAULT_LIMIT;
  const offsetParam = Number(ctx.query.get('offset'));
  const offset = Number.isInteger(offsetParam) && offsetParam > 0 ? offsetParam : 0;

  const data = await gql<{ model: { get: ModelDefinition | null }; record: { list: RecordPage } }>(
    `query AdminRecords($id: ID!, $limit: Int, $offset: Int, $sort: String) {
      model { get(id: $id) { ${MODEL_SELECTION} } }
      record { list(modelId: $id, limit: $limit, offset: $offset, sort: $sort) { total hasMore items { id data createdAt updatedAt } } }
    }`,
    { id: modelId, limit, offset, sort },
  ).catch((error: unknown) => {
    if (error instanceof ApiError && error.code === 'NOT_FOUND') return null;
    throw error;
  });
  if (!ctx.isCurrent()) return;
  const model = data?.model.get;
  if (!data || !model) {
    ctx.setTitle('Model not found');
    replaceChildren(
      ctx.main,
      pageHeader('Model not found'),
      alertBox('This model does not exist in this workspace (any more).'),
      h('p', null, h('a', { href: '#/models' }, 'Back to the models')),
    );
    return;
  }
  const page = data.record.list;
  ctx.setTitle(`${model.name} records`);
  const canWrite = mayWriteRecords(ctx.workspace.role);
  const errors = errorArea();
  const locales = preferredLocales();

  const href = (next: { offset?: number; limit?: number; sort?: Sort }) => {
    const query = new URLSearchParams({
      sort: next.sort ?? sort,
      limit: String(next.limit ?? limit),
      offset: String(Math.max(0, next.offset ?? offset)),
    });
    return `#/models/${model.id}/records?${query}`;
  };

  const display = displayFieldOf(model);
  const priority = [model.product?.skuField, model.product?.priceField].filter((key): key is string => Boolean(key));
  const others = [
    ...model.fields.filter((field) => priority.includes(field.key) && field !== display),
    ...model.fields.filter((field) => !priority.includes(field.key) && field !== display),
  ].slice(0, 4);

  const sortHeader = (label: string, column: 'createdAt' | 'updatedAt') => {
    const active = sort.startsWith(column);
    const descending = sort.endsWith('_desc');
    const next: Sort = active && descending ? `${column}_asc` : `${column}_desc`;
    return h(
      'th',
      { scope: 'col', 'aria-sort': active ? (descending ? 'descending' : 'ascending') : 'none' },
      h(
        'a',
        {
          href: href({ sort: next, offset: 0 }),
          class: 'sort-link',
          'aria-label': `${label}: sort ${next.endsWith('_desc') ? 'newest first' : 'oldest first'}`,
        },
        label,
        h('span', { 'aria-hidden': 'true', class: 'sort-mark' }, active ? (descending ? ' ▼' : ' ▲') : ' ↕'),
      ),
    );
  };

  const rows = page.items.map((record) =>
    h(
      'tr',
      null,
      h('th', { scope: 'row' }, h('a', { href: `#/models/${model.id}/records/${record.id}` }, recordName(model, record))),
      others.map((field) =>
        h('td', { class: field.type === 'number' ? 'num' : null }, cellText(record.data[field.key], field, locales)),
      ),
      h('td', null, h('time', { datetime: record.createdAt }, formatDateTime(record.createdAt))),
      h('td', null, h('time', { datetime: record.updatedAt }, formatDateTime(record.updatedAt))),
      h(
        'td',
        { class: 'actions' },
        linkButton(canWrite ? 'Edit' : 'View', `#/models/${model.id}/records/${record.id}`, {
          'aria-label': `${canWrite ? 'Edit' : 'View'} ${recordName(model, record)}`,
        }),
        canWrite
          ? button(
              'Delete',
              async () => {
                errors.clear();
                const deleted = await deleteRecord(model, record, (error) => errors.show(error, 'The record was not deleted.'));
                if (deleted) {
                  ctx.flash(`${recordName(model, record)} deleted.`);
                  ctx.navigate(href({ offset: page.items.length === 1 && offset > 0 ? offset - limit : offset }));
                }
              },
              { class: 'button button-danger', 'aria-label': `Delete ${recordName(model, record)}` },
            )
          : null,
      ),
    ),
  );

  const first = page.total === 0 ? 0 : offset + 1;
  const last = offset + page.items.length;
  const pageCount = Math.max(1, Math.ceil(page.total / limit));
  const pageNumber = Math.floor(offset / limit) + 1;
  const limitSelect: HTMLSelectElement = h(
    'select',
    {
      id: 'records-limit',
      onchange: () => ctx.navigate(href({ limit: Number(limitSelect.value), offset: 0 })),
    },
    LIMITS.map((value) => h('option', { value: String(value) }, String(value))),
  );
  limitSelect.value = String(limit);
  const pageInput = h('input', {
    id: 'records-page',
    type: 'number',
    min: '1',
    max: String(pageCount),
    value: String(pageNumber),
    class: 'page-input',
  });
  const pager = h(
    'nav',
    { class: 'pager', 'aria-label': 'Pages' },
    h(
      'p',
      { class: 'pager-status', 'aria-live': 'polite' },
      page.total === 0
        ? 'No records'
        : `Records ${first.toLocaleString()}–${last.toLocaleString()} of ${page.total.toLocaleString()}`,
    ),
    h(
      'div',
      { class: 'pager-controls' },
      offset > 0
        ? linkButton('Previous page', href({ offset: offset - limit }), { rel: 'prev' })
        : h('span', { class: 'button', 'aria-disabled': 'true' }, 'Previous page'),
      h(
        'form',
        {
          class: 'page-jump',
          onsubmit: (event: Event) => {
            event.preventDefault();
            const wanted = Math.min(pageCount, Math.max(1, Math.floor(Number(pageInput.value)) || 1));
            ctx.navigate(href({ offset: (wanted - 1) * limit }));
          },
        },
        h('label', { for: 'records-page' }, 'Page'),
        pageInput,
        h('span', null, ` of ${pageCount.toLocaleString()}`),
        h('button', { type: 'submit', class: 'button' }, 'Go'),
      ),
      page.hasMore
        ? linkButton('Next page', href({ offset: offset + limit }), { rel: 'next' })
        : h('span', { class: 'button', 'aria-disabled': 'true' }, 'Next page'),
      h('label', { for: 'records-limit' }, 'Per page'),
      limitSelect,
    ),
  );

  const table =
    page.total === 0
      ? h(
          'p',
          { class: 'empty' },
          'No records yet. ',
          canWrite
            ? [
                h('a', { href: `#/models/${model.id}/records/new` }, 'Add one'),
                ' or ',
                h('a', { href: `#/models/${model.id}/import` }, 'import a CSV'),
                '.',
              ]
            : null,
        )
      : h(
          'div',
          { class: 'table-scroll' },
          h(
            'table',
            { class: 'table records' },
            h(
              'caption',
              { class: 'visually-hidden' },
              `Records of ${model.name}, ${sort.startsWith('created') ? 'by creation time' : 'by update time'}, ${sort.endsWith('desc') ? 'newest first' : 'oldest first'}`,
            ),
            h(
              'thead',
              null,
              h(
                'tr',
                null,
                h('th', { scope: 'col' }, display?.label ?? 'Record'),
                others.map((field) => h('th', { scope: 'col', class: field.type === 'number' ? 'num' : null }, field.label)),
                sortHeader('Created', 'createdAt'),
                sortHeader('Updated', 'updatedAt'),
                h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')),
              ),
            ),
            h('tbody', null, rows),
          ),
        );

  replaceChildren(
    ctx.main,
    h('p', { class: 'breadcrumbs' }, h('a', { href: '#/models' }, 'Models'), ' / ', model.name),
    pageHeader(
      model.name,
      canWrite ? linkButton('New record', `#/models/${model.id}/records/new`, { class: 'button button-primary' }) : null,
      canWrite ? linkButton('Import CSV', `#/models/${model.id}/import`) : null,
      mayChangeModels(ctx.workspace.role) ? linkButton('Edit model', `#/models/${model.id}/edit`) : null,
    ),
    errors.element,
    table,
    page.total > 0 ? pager : null,
  );
  announce(page.total === 0 ? 'No records' : `Records ${first} to ${last} of ${page.total}`);
}
