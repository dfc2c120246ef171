// `populate: ["category", "category.parent"]`: which relation fields of an answer's records are replaced by the
// records they point at. Here the keys are checked and turned into a tree of relation fields, one node per path;
// the services fetch each node's targets in one query, and record-shape.ts writes them into the data.
import { fieldError, type ServiceError } from './errors.js';
import { relationTargetSlug, type FieldDefinition, type ModelDefinition, type RecordData } from './fields.js';
import { isPlainObject } from '../shared/json.js';

export const POPULATE_LIMITS = {
  /** Fields in one populate key: `category.parent.parent`. */
  maxDepth: 3,
  /** Keys in one `populate` argument. */
  maxKeys: 20,
  /** Distinct records one populate path may bring into one answer. */
  maxTargetsPerPath: 1000,
} as const;

/** One relation field to populate, reached by `path` (a populate key or the start of one). */
export interface PopulateNode {
  path: string;
  field: FieldDefinition;
  target: ModelDefinition;
  /** What is populated inside the target records. */
  inner: PopulateLevel;
}

/** One media field to populate: its asset ids are replaced by the assets (media.md). */
export interface MediaNode {
  path: string;
  field: FieldDefinition;
}

/**
 * What is populated in one object of record data: relation fields and media fields by key; object fields lead to
 * their sub-fields'.
 */
export interface PopulateLevel {
  relations: Map<string, PopulateNode>;
  media: Map<string, MediaNode>;
  objects: Map<string, PopulateLevel>;
}

export interface PopulateScope {
  /** The workspace's model with that slug. */
  modelBySlug(slug: string): ModelDefinition | undefined;
  /** The delivery route: a relation into a model that is not public is refused. */
  publicOnly: boolean;
}

const KEY_PATH = /^[A-Za-z_][A-Za-z0-9_]{0,63}(\.[A-Za-z_][A-Za-z0-9_]{0,63})*$/;

function refuse(path: string, reason: string): ServiceError {
  return fieldError({ path, reason });
}

/** Checks the form of populate keys (before any model is read); returns them without repeats. */
export function checkPopulateKeys(keys: readonly string[] | null | undefined): string[] {
  if (!keys || keys.length === 0) return [];
  if (keys.length > POPULATE_LIMITS.maxKeys) {
    throw refuse('populate', `at most ${POPULATE_LIMITS.maxKeys} keys; got ${keys.length}`);
  }
  keys.forEach((key, index) => {
    if (!KEY_PATH.test(key)) {
      throw refuse(`populate[${index}]`, 'must be a relation field key, or a dotted path of them such as category.parent');
    }
    const depth = key.split('.').length;
    if (depth > POPULATE_LIMITS.maxDepth) {
      throw refuse(`populate.${key}`, `nests ${depth} fields deep; at most ${POPULATE_LIMITS.maxDepth}`);
    }
  });
  return [...new Set(keys)];
}

export function emptyLevel(): PopulateLevel {
  return { relations: new Map(), media: new Map(), objects: new Map() };
}

export function isEmptyLevel(level: PopulateLevel): boolean {
  return level.relations.size === 0 && level.media.size === 0 && level.objects.size === 0;
}

/** The populate tree of `model` for checked keys; refuses a key that does not name relation fields. */
export function planPopulate(model: ModelDefinition, keys: readonly string[], scope: PopulateScope): PopulateLevel {
  const root = emptyLevel();
  for (const key of keys) addPopulateKey(root, model, key, scope);
  return root;
}

/**
 * Adds one checked key to the tree of `model`. Each segment is a field of the current level: an object field with
 * sub-fields leads into them, a relation field into its target model; the key must end on a relation or media field.
 */
export function addPopulateKey(root: PopulateLevel, model: ModelDefinition, key: string, scope: PopulateScope): void {
  const segments = key.split('.');
  const path = `populate.${key}`;
  let level = root;
  let fields: readonly FieldDefinition[] = model.fields;
  segments.forEach((segment, index) => {
    const field = fields.find((candidate) => candidate.key === segment);
    const last = index === segments.length - 1;
    if (field?.type === 'object' && field.fields && !last) {
      let inner = level.objects.get(segment);
      if (!inner) level.objects.set(segment, (inner = emptyLevel()));
      level = inner;
      fields = field.fields;
      return;
    }
    if (field?.type === 'media' && last) {
      level.media.set(segment, { path: segments.join('.'), field });
      return;
    }
    if (field?.type !== 'relation') throw refuse(path, 'not a relation field');
    let node = level.relations.get(segment);
    if (!node) {
      const target = scope.modelBySlug(relationTargetSlug(field) ?? '');
      if (!target || (scope.publicOnly && target.deliveryAccess !== 'public')) {
        throw refuse(path, scope.publicOnly ? 'target model is not public' : 'not a relation field');
      }
      node = { path: segments.slice(0, index + 1).join('.'), field, target, inner: emptyLevel() };
      level.relations.set(segment, node);
    }
    level = node.inner;
    fields = node.target.fields;
  });
}

/** Every node of a level and of the levels of its object fields (not of the targets' levels). */
export function nodesOf(level: PopulateLevel): PopulateNode[] {
  return [...level.relations.values(), ...[...level.objects.values()].flatMap(nodesOf)];
}

/** The ids the records' data holds in the relation fields of `level`, per node. */
export function relationIds(level: PopulateLevel, records: readonly RecordData[]): Map<PopulateNode, Set<string>> {
  const ids = new Map<PopulateNode, Set<string>>();
  const visit = (at: PopulateLevel, data: unknown) => {
    if (!isPlainObject(data)) return;
    for (const [key, node] of at.relations) {
      let found = ids.get(node);
      if (!found) ids.set(node, (found = new Set()));
      const value = data[key];
      if (typeof value === 'string') found.add(value);
      else if (Array.isArray(value)) for (const id of value) if (typeof id === 'string') found.add(id);
    }
    for (const [key, inner] of at.objects) visit(inner, data[key]);
  };
  for (const data of records) visit(level, data);
  return ids;
}

/** The asset ids the records' data holds in the media fields of `level` (and of its object fields), added to `ids`. */
export function mediaIds(level: PopulateLevel, records: readonly RecordData[], ids: Set<string>): void {
  const visit = (at: PopulateLevel, data: unknown) => {
    if (!isPlainObject(data)) return;
    for (const key of at.media.keys()) {
      const value = data[key];
      if (typeof value === 'string') ids.add(value);
      else if (Array.isArray(value)) for (const id of value) if (typeof id === 'string') ids.add(id);
    }
    for (const [key, inner] of at.objects) visit(inner, data[key]);
  };
  for (const data of records) visit(level, data);
}
