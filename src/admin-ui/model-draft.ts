// The model editor's draft (what the form holds while it is edited) and the API input read from it.
import { INDEXABLE_FIELD_TYPES, type FieldType } from '../shared/field-types.js';
import { uid } from './dom.js';
import type { FieldDefinition, ModelDefinition } from './types.js';

export interface DraftField {
  uid: string;
  key: string;
  label: string;
  type: FieldType;
  required: boolean;
  relationTo: string;
  relationType: 'hasOne' | 'hasMany';
  fields: DraftField[];
  /** A media field: an array of asset ids (else one). */
  multiple: boolean;
  /** A media field: the asset kinds it takes (image, video, audio, document); empty for all. */
  acceptedTypes: string[];
  /** Kept as read (the editor does not show it), so that saving a model keeps its indexes. */
  indexed: boolean;
  /** Stops the key following the label once the key was typed (or for a field that exists). */
  keyTouched: boolean;
}

export interface Draft {
  name: string;
  slug: string;
  slugTouched: boolean;
  description: string;
  displayField: string;
  deliveryAccess: 'public' | 'none';
  /** Records have a working copy and a published copy (docs/lifecycle.md). */
  drafts: boolean;
  product: { enabled: boolean; skuField: string; priceField: string };
  fields: DraftField[];
}

export function draftField(field?: FieldDefinition): DraftField {
  return {
    uid: uid('field'),
    key: field?.key ?? '',
    label: field?.label ?? '',
    type: field?.type ?? 'text',
    required: field?.required ?? false,
    relationTo: field?.relationTo ?? '',
    relationType: field?.relationType === 'hasMany' ? 'hasMany' : 'hasOne',
    fields: (field?.fields ?? []).map((sub) => draftField(sub)),
    multiple: field?.multiple === true,
    acceptedTypes: [...(field?.acceptedTypes ?? [])],
    indexed: field?.indexed ?? false,
    keyTouched: field !== undefined,
  };
}

export function draftOf(model: ModelDefinition | null): Draft {
  return {
    name: model?.name ?? '',
    slug: model?.slug ?? '',
    slugTouched: model !== null,
    description: model?.description ?? '',
    displayField: model?.displayField ?? '',
    deliveryAccess: model?.deliveryAccess ?? 'none',
    drafts: model?.drafts ?? false,
    product: {
      enabled: model?.product?.enabled ?? false,
      skuField: model?.product?.skuField ?? '',
      priceField: model?.product?.priceField ?? '',
    },
    fields: model ? model.fields.map((field) => draftField(field)) : [draftField()],
  };
}

function fieldInput(field: DraftField): Record<string, unknown> {
  const out: Record<string, unknown> = {
    key: field.key.trim(),
    label: field.label.trim() || field.key.trim(),
    type: field.type,
    required: field.required,
  };
  if (field.type === 'relation') {
    out.relationTo = field.relationTo;
    out.relationType = field.relationType;
  }
  if (field.type === 'media') {
    if (field.multiple) out.multiple = true;
    if (field.acceptedTypes.length > 0) out.acceptedTypes = [...field.acceptedTypes];
  }
  if (field.type === 'object' && field.fields.length > 0) out.fields = field.fields.map(fieldInput);
  if (field.indexed && INDEXABLE_FIELD_TYPES.includes(field.type)) out.indexed = true;
  return out;
}

/** The input of a create or an update, read from the draft; the server checks it (its errors name the paths). */
export interface ModelInput {
  /** What a create and an update both send. */
  common: Record<string, unknown>;
  /** The product settings, or null for a model that is not a product catalog. */
  product: Record<string, unknown> | null;
  slug: string;
}

export function modelInput(draft: Draft): ModelInput {
  const fields = draft.fields.map(fieldInput);
  const product = draft.product.enabled
    ? { enabled: true, skuField: draft.product.skuField || null, priceField: draft.product.priceField || null }
    : null;
  const common: Record<string, unknown> = {
    name: draft.name.trim(),
    description: draft.description.trim() === '' ? null : draft.description,
    displayField: draft.displayField || null,
    deliveryAccess: draft.deliveryAccess,
    drafts: draft.drafts,
    fields,
  };
  return { common, product, slug: draft.slug.trim() };
}
