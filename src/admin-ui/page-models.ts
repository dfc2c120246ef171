import { gql } from './api.js';
import { h, replaceChildren, scrollingTable } from './dom.js';
import { invalidateModels, listModels } from './models-cache.js';
import type { PageContext } from './page.js';
import { mayChangeModels, mayWriteRecords, type ModelDefinition } from './types.js';
import { announce, button, confirmDialog, errorArea, linkButton, pageHeader } from './ui.js';

export async function renderModels(ctx: PageContext): Promise<void> {
  ctx.setTitle('Models');
  invalidateModels();
  const models = await listModels();
  if (!ctx.isCurrent()) return;
  const canChange = mayChangeModels(ctx.workspace.role);
  const canWrite = mayWriteRecords(ctx.workspace.role);
  const errors = errorArea();

  const remove = async (model: ModelDefinition) => {
    errors.clear();
    const confirmed = await confirmDialog({
      title: `Delete model ${model.name}?`,
      message: h(
        'p',
        null,
        `The model "${model.slug}" and its definition are deleted. A model that still has records, or that another model's relation points at, cannot be deleted.`,
      ),
      confirmLabel: 'Delete model',
      danger: true,
    });
    if (!confirmed) return;
    try {
      await gql('mutation DeleteModel($id: ID!) { model { delete(id: $id) { id deleted } } }', { id: model.id });
      ctx.flash(`Model ${model.name} deleted.`);
      ctx.navigate('#/models');
    } catch (error) {
      errors.show(error, 'The model was not deleted.');
      announce('The model was not deleted.');
    }
  };

  const body =
    models.length === 0
      ? h(
          'p',
          { class: 'empty' },
          'No models yet. ',
          canChange ? [h('a', { href: '#/models/new' }, 'Create the first model'), '.'] : 'An admin or owner can create one.',
        )
      : scrollingTable(
          h(
            'table',
            { class: 'table' },
            h('caption', { class: 'visually-hidden' }, 'Models of this workspace'),
            h(
              'thead',
              null,
              h(
                'tr',
                null,
                ['Name', 'Slug', 'Records', 'Fields', 'Delivery', 'Product'].map((title) => h('th', { scope: 'col' }, title)),
                h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')),
              ),
            ),
            h(
              'tbody',
              null,
              models.map((model) =>
                h(
                  'tr',
                  null,
                  h(
                    'th',
                    { scope: 'row' },
                    h('a', { href: `#/models/${model.id}/records` }, model.name),
                    model.description ? h('div', { class: 'muted small' }, model.description) : null,
                  ),
                  h('td', null, h('code', null, model.slug)),
                  h('td', { class: 'num' }, model.recordCount.toLocaleString()),
                  h('td', null, model.fields.map((field) => field.key).join(', ')),
                  h('td', null, model.deliveryAccess === 'public' ? 'Public' : 'Not delivered'),
                  h(
                    'td',
                    null,
                    model.product?.enabled
                      ? `SKU ${model.product.skuField ?? ''}${model.product.priceField ? `, price ${model.product.priceField}` : ''}`
                      : '',
                  ),
                  h(
                    'td',
                    { class: 'actions' },
                    linkButton('Records', `#/models/${model.id}/records`, { 'aria-label': `Records of ${model.name}` }),
                    canWrite
                      ? linkButton('Import CSV', `#/models/${model.id}/import`, { 'aria-label': `Import CSV into ${model.name}` })
                      : null,
                    canChange
                      ? linkButton('Edit', `#/models/${model.id}/edit`, { 'aria-label': `Edit model ${model.name}` })
                      : null,
                    canChange
                      ? button('Delete', () => void remove(model), {
                          class: 'button button-danger',
                          'aria-label': `Delete model ${model.name}`,
                        })
                      : null,
                  ),
                ),
              ),
            ),
          ),
        );
  replaceChildren(
    ctx.main,
    pageHeader('Models', canChange ? linkButton('New model', '#/models/new', { class: 'button button-primary' }) : null),
    errors.element,
    body,
  );
}
