// Shapes of the admin GraphQL API as the admin application reads them (see docs CONTRACT: ModelDefinition etc.).
// The field definition is the client SDK's (src/client/types.ts), narrowed to the field types this version knows
// (src/shared/field-types.ts).
import type { FieldDefinition as AnyFieldDefinition, ProductSettings } from '../client/types.js';
import type { FieldType } from '../shared/field-types.js';

export type { ProductSettings };

/** A field definition; a media field also says whether it holds several assets and of which kinds (docs/media.md). */
export interface FieldDefinition extends AnyFieldDefinition<FieldType> {
  fields?: FieldDefinition[] | null;
  /** A media field holds an array of asset ids (else one id). */
  multiple?: boolean;
  /** A media field's asset kinds (image, video, audio, document); null or empty: all. */
  acceptedTypes?: string[] | null;
}

export interface ModelSummary {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  displayField: string;
  deliveryAccess: 'public' | 'none';
  recordCount: number;
  product: ProductSettings | null;
  /** Records have a working copy and a published copy (docs/lifecycle.md); absent in answers that did not ask. */
  drafts?: boolean;
  updatedAt: string;
}

export interface ModelDefinition extends ModelSummary {
  fields: FieldDefinition[];
}

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export interface ModelRecord {
  id: string;
  data: JsonObject;
  createdAt: string;
  updatedAt: string;
  /** draft, published or changed (record-status-state.ts); a model without drafts: always published. */
  status?: string;
  /** The revision of the working copy. */
  revision?: number;
  /** The last publish (null when not published). */
  publishedAt?: string | null;
  /** The revision that is live (null when not published). */
  publishedRevision?: number | null;
}

export interface RecordPage {
  total: number;
  hasMore: boolean;
  items: ModelRecord[];
}

export type Role = 'owner' | 'admin' | 'editor' | 'viewer';

export interface SessionWorkspace {
  id: string;
  orgSlug: string;
  slug: string;
  role: Role;
}

export interface Session {
  user: { email: string };
  csrfToken: string;
  workspaces: SessionWorkspace[];
}

/** Roles that may create, change and delete models (the server decides; the app only hides what would fail). */
export function mayChangeModels(role: Role | undefined): boolean {
  return role === 'owner' || role === 'admin';
}

/** Roles that may change the workspace's settings (its default locale). */
export function mayChangeWorkspaceSettings(role: Role | undefined): boolean {
  return role === 'owner' || role === 'admin';
}

export function mayWriteRecords(role: Role | undefined): boolean {
  return role === 'owner' || role === 'admin' || role === 'editor';
}

/** `model:<slug>` → `<slug>`. */
export function relationSlug(field: FieldDefinition): string {
  return (field.relationTo ?? '').replace(/^model:/, '');
}

/** The selection of a field list, `levels` deep into object sub-fields (GraphQL has no recursion). */
export function fieldSelection(levels: number): string {
  const own = 'key label type required relationTo relationType indexed multiple acceptedTypes';
  return levels <= 1 ? `fields { ${own} }` : `fields { ${own} ${fieldSelection(levels - 1)} }`;
}

/** How deep the app reads sub-fields; a model nested deeper cannot be edited here (its deepest fields are not read). */
export const FIELD_LEVELS = 8;

/** True when an object field sits at the deepest level read, so its sub-fields (if any) were not read. */
export function hasUnreadLevels(fields: readonly FieldDefinition[], level = 1): boolean {
  return fields.some(
    (field) => field.type === 'object' && (level >= FIELD_LEVELS ? true : hasUnreadLevels(field.fields ?? [], level + 1)),
  );
}
