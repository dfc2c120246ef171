// The `media` field type (docs/media.md): one asset id, or an array of them with `multiple: true`, of the kinds in
// `acceptedTypes`. Whether an id is an asset of the workspace, and of which kind, the service checks against the store.
import { ACCEPTED_ASSET_TYPES } from '../shared/media.js';
import type { FieldDefinition } from './fields.js';

type AddIssue = (path: string, reason: string) => void;

/** The media settings of a field definition, checked; settings only media fields may have refused elsewhere. */
export function normaliseMediaSettings(
  raw: Record<string, unknown>,
  at: string,
  add: AddIssue,
): Pick<FieldDefinition, 'multiple' | 'acceptedTypes'> {
  const settings: Pick<FieldDefinition, 'multiple' | 'acceptedTypes'> = {};
  if (raw.multiple !== undefined && raw.multiple !== null && typeof raw.multiple !== 'boolean') {
    add(`${at}.multiple`, 'must be a boolean');
  } else if (raw.multiple === true) {
    settings.multiple = true;
  }
  const accepted = raw.acceptedTypes;
  if (accepted === undefined || accepted === null) return settings;
  if (!Array.isArray(accepted)) {
    add(`${at}.acceptedTypes`, `must be an array of ${ACCEPTED_ASSET_TYPES.join(', ')}`);
    return settings;
  }
  const kinds: string[] = [];
  accepted.forEach((kind, index) => {
    if (typeof kind !== 'string' || !(ACCEPTED_ASSET_TYPES as readonly string[]).includes(kind)) {
      add(`${at}.acceptedTypes[${index}]`, `must be one of ${ACCEPTED_ASSET_TYPES.join(', ')}`);
    } else if (!kinds.includes(kind)) {
      kinds.push(kind);
    }
  });
  if (kinds.length > 0) settings.acceptedTypes = kinds;
  return settings;
}

/** Settings only a media field may have: refused on the others, naming them. */
export function refuseMediaSettings(raw: Record<string, unknown>, at: string, add: AddIssue): void {
  for (const key of ['multiple', 'acceptedTypes']) {
    if (raw[key] !== undefined && raw[key] !== null) add(`${at}.${key}`, 'is only allowed on media fields');
  }
}

const KIND_NAMES: Record<string, string> = {
  image: 'an image',
  video: 'a video',
  audio: 'an audio file',
  document: 'a document',
};

/** Does the field take an asset of this kind? */
export function acceptsAssetType(field: Pick<FieldDefinition, 'acceptedTypes'>, type: string): boolean {
  return !field.acceptedTypes || field.acceptedTypes.length === 0 || field.acceptedTypes.includes(type);
}

/** The refusal of an asset of a kind the field does not take: `expected an image` (or `an image or a video`). */
export function expectedKinds(field: Pick<FieldDefinition, 'acceptedTypes'>): string {
  const names = (field.acceptedTypes ?? []).map((kind) => KIND_NAMES[kind] ?? kind);
  return `expected ${names.join(' or ')}`;
}
