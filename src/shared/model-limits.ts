// The bounds of a model definition: enforced by the service, and checked by the client's schema files before any
// change is sent.

/** Bounds on a model's size: a definition is read for every record write and list. */
export const MODEL_LIMITS = {
  /** Fields in all, sub-fields of object fields included. */
  maxFields: 500,
  /** How deep object fields may nest their sub-fields. */
  maxFieldDepth: 8,
  maxNameLength: 200,
  maxLabelLength: 200,
  maxDescriptionLength: 5000,
  maxIconLength: 64,
  /** Indexed fields, sub-fields included: each index is written on every record write. */
  maxIndexedFields: 20,
} as const;

/** A model's (and an organisation's or workspace's) slug. */
export const SLUG_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
