// The data of an answer's records as a read asked for it: translatable values in one locale (locale.ts) and
// relation ids replaced by the records they point at (populate.ts). Pure: the targets come fetched.
import type { FieldDefinition, RecordData } from './fields.js';
import { hasTranslatable, pickTranslation } from './locale.js';
import { isEmptyLevel, type PopulateLevel, type PopulateNode } from './populate.js';
import type { StoredRecord } from './stored-record.js';
import { isPlainObject } from '../shared/json.js';

/** A target record as populate writes it into its source's data. */
export interface PopulatedRecord {
  id: string;
  modelId: string;
  data: RecordData;
  createdAt: string;
  updatedAt: string;
}

export interface ReadShape {
  /** The locales translatable values are read in, best first (localeChain); null: as stored. */
  locales: readonly string[] | null;
  /** The fetched targets of each populate node, by id: records of the node's target model only. */
  targets: ReadonlyMap<PopulateNode, ReadonlyMap<string, StoredRecord>>;
}

/** Writes records' data in a read's shape; a target that many records point at is shaped once. */
export class RecordShaper {
  private readonly populated = new Map<PopulateNode, Map<string, PopulatedRecord | null>>();

  constructor(private readonly shape: ReadShape) {}

  /** Whether records of these fields with this populate level come out different from how they are stored. */
  changes(fields: readonly FieldDefinition[], level: PopulateLevel | null): boolean {
    return (level !== null && !isEmptyLevel(level)) || (this.shape.locales !== null && hasTranslatable(fields));
  }

  /** The record with its data in the read's shape (the record itself when nothing changes). */
  record(record: StoredRecord, fields: readonly FieldDefinition[], level: PopulateLevel | null): StoredRecord {
    if (!this.changes(fields, level)) return record;
    return {
      id: record.id,
      modelId: record.modelId,
      workspaceId: record.workspaceId,
      data: this.data(fields, record.data, level),
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
      createdBy: record.createdBy,
      updatedBy: record.updatedBy,
    };
  }

  private data(fields: readonly FieldDefinition[], data: RecordData, level: PopulateLevel | null): RecordData {
    const byKey = fieldsByKey(fields);
    const result: RecordData = {};
    for (const key of Object.keys(data)) {
      const field = byKey.get(key);
      // Keys are field keys (checked when written), never __proto__: plain assignment is safe.
      result[key] = field ? this.value(field, data[key], level) : data[key];
    }
    return result;
  }

  private value(field: FieldDefinition, value: unknown, level: PopulateLevel | null): unknown {
    if (value === null || value === undefined) return value;
    switch (field.type) {
      case 'translatable':
        return this.shape.locales ? pickTranslation(value, this.shape.locales) : value;
      case 'object': {
        if (!field.fields || !isPlainObject(value)) return value;
        const inner = level?.objects.get(field.key) ?? null;
        return this.changes(field.fields, inner) ? this.data(field.fields, value, inner) : value;
      }
      case 'relation': {
        const node = level?.relations.get(field.key);
        if (!node) return value;
        if (Array.isArray(value)) return value.map((id: unknown) => (typeof id === 'string' ? this.target(node, id) : null));
        return typeof value === 'string' ? this.target(node, value) : value;
      }
      default:
        return value;
    }
  }

  private target(node: PopulateNode, id: string): PopulatedRecord | null {
    let shaped = this.populated.get(node);
    if (!shaped) this.populated.set(node, (shaped = new Map<string, PopulatedRecord | null>()));
    let populated = shaped.get(id);
    if (populated === undefined) {
      const record = this.shape.targets.get(node)?.get(id);
      // Only a record of the field's target model: on the delivery route that model is public.
      populated =
        record?.modelId === node.target.id
          ? {
              id: record.id,
              modelId: record.modelId,
              data: this.changes(node.target.fields, node.inner)
                ? this.data(node.target.fields, record.data, node.inner)
                : record.data,
              createdAt: record.createdAt,
              updatedAt: record.updatedAt,
            }
          : null;
      shaped.set(id, populated);
    }
    return populated;
  }
}

const keyMaps = new WeakMap<readonly FieldDefinition[], Map<string, FieldDefinition>>();

function fieldsByKey(fields: readonly FieldDefinition[]): Map<string, FieldDefinition> {
  let byKey = keyMaps.get(fields);
  if (!byKey) keyMaps.set(fields, (byKey = new Map(fields.map((field) => [field.key, field]))));
  return byKey;
}
