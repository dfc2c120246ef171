// The data of an answer's records as a read asked for it: translatable values in one locale (locale.ts) and
// relation ids replaced by the records they point at (populate.ts). Pure: the targets come fetched.
//
// The shaped data is written as JSON text, and the records carry it as the store's records carry theirs (parsed
// only if someone reads `data`; the answer copies the text): a target that 100 records point at is written once,
// and a target whose data does not change is copied as the text the database returned.
import type { FieldDefinition, RecordData } from './fields.js';
import { jsonString, memberSpans, spanValue, type MemberSpan } from './json-members.js';
import { defineLazyData, unparsedText } from './json-text.js';
import { hasTranslatable, pickTranslation } from './locale.js';
import { isEmptyLevel, type PopulateLevel, type PopulateNode } from './populate.js';
import type { StoredRecord } from './stored-record.js';
import { isPlainObject } from '../shared/json.js';

/**
 * A target record as populate writes it into its source's data: `{id, modelId, data, createdAt, updatedAt}`.
 * (The shaper writes it as JSON text; this is what that text reads as.)
 */
export interface PopulatedRecord {
  id: string;
  modelId: string;
  data: RecordData;
  createdAt: string;
  updatedAt: string;
}

/** An asset as populate writes it into a media field (media.md); `url` absent for a private asset on delivery. */
export interface PopulatedAsset {
  id: string;
  url?: string;
  filename: string;
  mimeType: string;
  width: number | null;
  height: number | null;
  /** Locale → text, resolved by the read's locales like a translatable value. */
  alt: Record<string, string> | null;
  blurhash: string | null;
}

export interface ReadShape {
  /** The locales translatable values are read in, best first (localeChain); null: as stored. */
  locales: readonly string[] | null;
  /** The fetched targets of each populate node, by id: records of the node's target model only. */
  targets: ReadonlyMap<PopulateNode, ReadonlyMap<string, StoredRecord>>;
  /** The assets the populated media fields hold, by id (an id without one is populated as null). */
  assets?: ReadonlyMap<string, PopulatedAsset>;
}

/** Writes records' data in a read's shape; a target that many records point at is written once. */
export class RecordShaper {
  /** The JSON text of each populated target (`null` for none), by node and id. */
  private readonly populated = new Map<PopulateNode, Map<string, string>>();

  constructor(private readonly shape: ReadShape) {}

  /** Whether records of these fields with this populate level come out different from how they are stored. */
  changes(fields: readonly FieldDefinition[], level: PopulateLevel | null): boolean {
    return (level !== null && !isEmptyLevel(level)) || (this.shape.locales !== null && hasTranslatable(fields));
  }

  /**
   * The record with its data in the read's shape (the record itself when nothing changes). `scan`: the record
   * already scanned for `level` (scanRelations), so that it is not read twice.
   */
  record(
    record: StoredRecord,
    fields: readonly FieldDefinition[],
    level: PopulateLevel | null,
    scan?: RelationScan | null,
  ): StoredRecord {
    if (!this.changes(fields, level)) return record;
    // The keys in the order of StoredRecord, `data` lazy (as the store makes records).
    const shaped = { id: record.id, modelId: record.modelId, workspaceId: record.workspaceId } as StoredRecord;
    defineLazyData(shaped, this.splicedText(fields, record, level, scan) ?? this.objectText(fields, readData(record), level));
    shaped.createdAt = record.createdAt;
    shaped.updatedAt = record.updatedAt;
    shaped.createdBy = record.createdBy;
    shaped.updatedBy = record.updatedBy;
    shaped.revision = record.revision;
    return shaped;
  }

  /**
   * The stored text with each populated relation's value replaced by its targets' text, the rest copied as it is
   * (a page's records are then neither parsed nor written again, which cost more than the rest of the page); undefined
   * when the data must be written anew: locales or nested levels to apply, or a text the member scanner cannot read.
   */
  private splicedText(
    fields: readonly FieldDefinition[],
    record: StoredRecord,
    level: PopulateLevel | null,
    scan: RelationScan | null | undefined,
  ): string | undefined {
    if (!level || level.objects.size > 0 || level.media.size > 0) return undefined;
    if (this.shape.locales !== null && hasTranslatable(fields)) return undefined;
    scan ??= scanRelations(record, level);
    if (!scan) return undefined;
    const { text, spans, data } = scan;
    const splices: Array<{ span: MemberSpan; value: string }> = [];
    for (const [key, node] of level.relations) {
      const span = spans.get(key);
      const value = data[key];
      if (span && value !== null) splices.push({ span, value: this.relationText(node, value) });
    }
    splices.sort((a, b) => a.span.start - b.span.start);
    let json = '';
    let copied = 0;
    for (const { span, value } of splices) {
      json += text.slice(copied, span.start) + value;
      copied = span.end;
    }
    return json + text.slice(copied);
  }

  private objectText(fields: readonly FieldDefinition[], data: RecordData, level: PopulateLevel | null): string {
    const byKey = fieldsByKey(fields);
    let json = '{';
    for (const key of Object.keys(data)) {
      if (json.length > 1) json += ',';
      const field = byKey.get(key);
      json += `${JSON.stringify(key)}:${field ? this.valueText(field, data[key], level) : stringify(data[key])}`;
    }
    return `${json}}`;
  }

  private valueText(field: FieldDefinition, value: unknown, level: PopulateLevel | null): string {
    if (value === null || value === undefined) return stringify(value);
    switch (field.type) {
      case 'translatable':
        return stringify(this.shape.locales ? pickTranslation(value, this.shape.locales) : value);
      case 'object': {
        if (!field.fields || !isPlainObject(value)) return stringify(value);
        const inner = level?.objects.get(field.key) ?? null;
        return this.changes(field.fields, inner) ? this.objectText(field.fields, value, inner) : stringify(value);
      }
      case 'relation': {
        const node = level?.relations.get(field.key);
        return node ? this.relationText(node, value) : stringify(value);
      }
      case 'media':
        return level?.media.has(field.key) ? this.mediaText(value) : stringify(value);
      default:
        return stringify(value);
    }
  }

  /** A relation's value (not null) with the ids replaced by their targets' text. */
  private relationText(node: PopulateNode, value: unknown): string {
    if (Array.isArray(value)) {
      return `[${value.map((id: unknown) => (typeof id === 'string' ? this.targetText(node, id) : 'null')).join(',')}]`;
    }
    return typeof value === 'string' ? this.targetText(node, value) : stringify(value);
  }

  /** A media field's value with each asset id replaced by the asset (null when there is none). */
  private mediaText(value: unknown): string {
    const assetText = (id: unknown) => {
      const asset = typeof id === 'string' ? this.shape.assets?.get(id) : undefined;
      if (!asset) return 'null';
      const alt = asset.alt && this.shape.locales ? pickTranslation(asset.alt, this.shape.locales) : asset.alt;
      return stringify({ ...asset, alt });
    };
    return Array.isArray(value) ? `[${value.map(assetText).join(',')}]` : assetText(value);
  }

  private targetText(node: PopulateNode, id: string): string {
    let texts = this.populated.get(node);
    if (!texts) this.populated.set(node, (texts = new Map<string, string>()));
    let text = texts.get(id);
    if (text === undefined) {
      const record = this.shape.targets.get(node)?.get(id);
      // Only a record of the field's target model: on the delivery route that model is public.
      text = record?.modelId === node.target.id ? this.populatedText(record, node) : 'null';
      texts.set(id, text);
    }
    return text;
  }

  private populatedText(record: StoredRecord, node: PopulateNode): string {
    const data = this.changes(node.target.fields, node.inner)
      ? this.objectText(node.target.fields, readData(record), node.inner)
      : (unparsedText(record) ?? stringify(record.data));
    return (
      `{"id":${jsonString(record.id)},"modelId":${jsonString(record.modelId)},"data":${data},` +
      `"createdAt":${jsonString(record.createdAt)},"updatedAt":${jsonString(record.updatedAt)}}`
    );
  }
}

/**
 * A record's stored text read for a populate level without parsing it: where the level's top-level relation members
 * are, and their values (what populate.relationIds needs of the record's data).
 */
export interface RelationScan {
  text: string;
  spans: ReadonlyMap<string, MemberSpan>;
  data: RecordData;
}

/**
 * The record's relation members for `level`, found in its unparsed text; null when the text is gone (parsed) or
 * cannot be scanned, or the level reaches into objects: then the data is parsed (readData).
 */
export function scanRelations(record: StoredRecord, level: PopulateLevel): RelationScan | null {
  const text = level.objects.size > 0 || level.media.size > 0 ? undefined : unparsedText(record);
  const spans = text === undefined ? null : memberSpans(text, level.relations);
  if (!spans || text === undefined) return null;
  const data: RecordData = {};
  for (const [key, span] of spans) data[key] = spanValue(text, span);
  return { text, spans, data };
}

const parsed = new WeakMap<StoredRecord, RecordData>();

/**
 * A record's data for reading it here: its JSON text parsed once, without turning the record's lazy `data` into a
 * property (which costs more than the parse); the record itself stays as the store made it.
 */
export function readData(record: StoredRecord): RecordData {
  let data = parsed.get(record);
  if (data === undefined) {
    const text = unparsedText(record);
    data = text === undefined ? record.data : (JSON.parse(text) as RecordData);
    parsed.set(record, data);
  }
  return data;
}

/** JSON text of a value of stored data (never undefined: a key present in data has a JSON value). */
function stringify(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}

const keyMaps = new WeakMap<readonly FieldDefinition[], Map<string, FieldDefinition>>();

function fieldsByKey(fields: readonly FieldDefinition[]): Map<string, FieldDefinition> {
  let byKey = keyMaps.get(fields);
  if (!byKey) keyMaps.set(fields, (byKey = new Map(fields.map((field) => [field.key, field]))));
  return byKey;
}
