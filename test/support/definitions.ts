// Model definitions built in memory, for tests of the parts that take them (no store involved).
import type { FieldDefinition, ModelDefinition } from '../../src/domain/fields.js';
import type { ModelShape } from '../../src/domain/model-definition.js';

export function field(key: string, type: FieldDefinition['type'], extra: Partial<FieldDefinition> = {}): FieldDefinition {
  return { key, label: key, type, required: false, ...extra };
}

/** What model.create stores: no delivery access, the first field displayed. */
export function modelShape(slug: string, fields: FieldDefinition[], extra: Partial<ModelShape> = {}): ModelShape {
  return {
    name: slug,
    slug,
    description: null,
    icon: null,
    color: null,
    displayField: fields[0]!.key,
    fields,
    product: null,
    deliveryAccess: 'none',
    ...extra,
  };
}

/** A stored model of workspace `w`, id `id-<slug>`, public, without records. */
export function modelDefinition(slug: string, fields: FieldDefinition[], extra: Partial<ModelDefinition> = {}): ModelDefinition {
  return {
    id: `id-${slug}`,
    workspaceId: 'w',
    ...modelShape(slug, fields, { deliveryAccess: 'public' }),
    drafts: false,
    recordCount: 0,
    publishedCount: 0,
    writeVersion: 0,
    hasLargeRecords: false,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...extra,
  };
}
