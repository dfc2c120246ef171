// The model editor's settings beside its fields: delivery access, drafts, the display field and the product catalog.
import type { FieldType } from '../shared/field-types.js';
import { h, uid } from './dom.js';
import type { Draft } from './model-draft.js';
import type { RegisterRow } from './model-form-errors.js';
import { group, input, labelled, type FieldRow } from './ui.js';

export function deliveryAccessGroup(draft: Draft, register: RegisterRow): FieldRow {
  const deliveryName = uid('delivery');
  const deliveryRadio = (value: 'public' | 'none', label: string, hint: string) => {
    const radio = input({ type: 'radio', name: deliveryName, value, checked: draft.deliveryAccess === value });
    radio.id = uid('radio');
    radio.addEventListener('change', () => {
      if (radio.checked) draft.deliveryAccess = value;
    });
    return h('div', { class: 'radio' }, radio, h('label', { for: radio.id }, label, h('span', { class: 'muted' }, ` — ${hint}`)));
  };
  return register(
    'deliveryAccess',
    group('Delivery access', [
      deliveryRadio('none', 'Not delivered', 'records are read only with a token or in this application'),
      deliveryRadio('public', 'Public', 'records are served read-only without a token on the delivery URL'),
    ]),
  );
}

/**
 * Drafts (docs/lifecycle.md): a checkbox, with what it means. The server turns it on by publishing every record as it
 * is, and refuses to turn it off while records have unpublished changes (CONFLICT `drafts: …`, shown at the row).
 */
export function draftsRow(draft: Draft, register: RegisterRow): FieldRow {
  const box = input({ type: 'checkbox', name: 'drafts', checked: draft.drafts });
  box.addEventListener('change', () => {
    draft.drafts = box.checked;
  });
  return register(
    'drafts',
    labelled('Drafts', box, {
      className: 'drafts-row',
      hint: 'On: saving a record publishes nothing new; every change stays a draft until it is published. Turning it on publishes every existing record as it is; off is refused while records have unpublished changes.',
    }),
  );
}

/** The selects that offer the model's fields: they follow the field editor (`refresh`). */
export interface FieldSelects {
  display: HTMLSelectElement;
  sku: HTMLSelectElement;
  price: HTMLSelectElement;
  refresh: () => void;
}

export function fieldSelects(draft: Draft): FieldSelects {
  const display = h('select', { name: 'displayField' });
  const sku = h('select', { name: 'skuField' });
  const price = h('select', { name: 'priceField' });
  // Offers `none` (the empty value), then the fields (of type `only`, when given). Returns what the select shows,
  // which the draft takes: a field no longer offered (removed, renamed, of another type) is not sent, so the request
  // is what the form shows.
  const fill = (target: HTMLSelectElement, none: string, only: FieldType | null, value: string): string => {
    const options = [
      { value: '', label: none },
      ...draft.fields
        .filter((field) => field.key.trim() !== '' && (only === null || field.type === only))
        .map((field) => ({ value: field.key, label: `${field.label || field.key} (${field.key})` })),
    ];
    target.replaceChildren(...options.map((option) => h('option', { value: option.value }, option.label)));
    target.value = options.some((option) => option.value === value) ? value : (options[0]?.value ?? '');
    return target.value;
  };
  const refresh = () => {
    draft.displayField = fill(display, '(the first field)', null, draft.displayField);
    draft.product.skuField = fill(sku, '(choose a text field)', 'text', draft.product.skuField);
    draft.product.priceField = fill(price, '(no price field)', 'number', draft.product.priceField);
  };
  display.addEventListener('change', () => {
    draft.displayField = display.value;
  });
  sku.addEventListener('change', () => {
    draft.product.skuField = sku.value;
  });
  price.addEventListener('change', () => {
    draft.product.priceField = price.value;
  });
  return { display, sku, price, refresh };
}

export function productGroup(draft: Draft, selects: FieldSelects, register: RegisterRow): FieldRow {
  const productEnabled = input({ type: 'checkbox', name: 'productEnabled', checked: draft.product.enabled });
  const productDetails = h(
    'div',
    { class: 'product-details', hidden: !draft.product.enabled },
    register(
      'product.skuField',
      labelled('SKU field', selects.sku, { hint: 'A text field whose values must be unique among the records.' }),
    ).element,
    register(
      'product.priceField',
      labelled('Price field', selects.price, { hint: 'A number field; the price is in major units (149.99).' }),
    ).element,
  );
  productEnabled.addEventListener('change', () => {
    draft.product.enabled = productEnabled.checked;
    productDetails.hidden = !productEnabled.checked;
  });
  const product = register(
    'product',
    group('Product catalog', [labelled('This model is a product catalog', productEnabled).element, productDetails]),
  );
  register('product.enabled', product);
  return product;
}
