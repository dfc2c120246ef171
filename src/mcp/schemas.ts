// The input schemas of the tools: zod shapes the SDK turns into JSON Schema for the agent and checks each call
// against. Every description says what an agent needs to act (limits, rules); every refusal names its argument first.
import { z } from 'zod';
import { FIELD_TYPES, RELATION_TYPES } from '../shared/field-types.js';
import { ACCEPTED_ASSET_TYPES } from '../shared/media.js';

/** The most rows one `import_records` call takes (the service's limit of one `record.import`). */
export const MAX_IMPORT_ROWS = 1000;
/** The most rows one `sync_records` call takes: the toolkit loads them in import calls of 1000. */
export const MAX_SYNC_ROWS = 10_000;
/** The largest page of `list_records` (the service clamps to it). */
export const MAX_LIST_LIMIT = 100;

/** A refusal message for an argument: `<name>: <reason>`, whatever zod found wrong. */
function named(name: string, expected: string) {
  return (issue: { input?: unknown; code?: string }) =>
    issue.input === undefined ? `${name}: required (${expected})` : `${name}: expected ${expected}`;
}

/** A required, non-empty string; `error`: one refusal for a value left out or not a string, instead of `named`'s. */
export function text(name: string, description: string, error?: string) {
  return z
    .string({ error: error ?? named(name, 'a string') })
    .min(1, { error: `${name}: must not be empty` })
    .describe(description);
}

function object(name: string, description: string) {
  return z.record(z.string(), z.unknown(), { error: named(name, 'a JSON object') }).describe(description);
}

/**
 * A tool's arguments: the shape, and nothing else. A misspelt argument is refused by name rather than left out
 * silently (an update that changes nothing would look like a success).
 */
export function toolArguments<Shape extends z.ZodRawShape>(shape: Shape) {
  const known = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `${issue.keys.join(', ')}: unknown argument (${known.length > 0 ? `this tool takes ${known.join(', ')}` : 'this tool takes none'})`
        : undefined,
  });
}

const RESPONSE_DESCRIPTION =
  'What the answer holds: "ack" (default) a short acknowledgement with the id, "full" the whole written item.';

export const response = z
  .enum(['ack', 'full'], { error: named('response', '"ack" or "full"') })
  .optional()
  .describe(RESPONSE_DESCRIPTION);

export const idOrSlug = text('idOrSlug', 'The model\'s slug (e.g. "product") or its id.');
export const recordId = text('id', 'The record id (from list_records, get_record or create_record).');

/** `modelId` or `modelSlug`: one of them names the model. */
export const modelRef = {
  modelId: text('modelId', 'The model id. Give modelId or modelSlug.').optional(),
  modelSlug: text('modelSlug', 'The model slug (e.g. "product"). Give modelId or modelSlug.').optional(),
};

const DATA_RULES =
  'Keys are field keys of the model (see get_model). Values by field type: text → string, number → number, ' +
  'boolean → true/false, date → ISO 8601 string ("2026-05-01" or "2026-05-01T12:00:00Z"), relation → the target ' +
  'record id (hasOne) or an array of ids (hasMany), translatable → {"en": "…", "de": "…"} by locale, object → a ' +
  'JSON object of its sub-fields, media → an asset id from upload_media or list_media (an array of ids when the ' +
  'field is multiple). Required fields must be present; unknown keys are refused.';

export const recordData = (name: string, what: string) => object(name, `${what} ${DATA_RULES}`);

const FIELD_DESCRIPTION =
  `A field of the model. type is one of ${FIELD_TYPES.join(', ')}; a relation also needs relationTo ("model:<slug>" of ` +
  `the target model) and relationType (${RELATION_TYPES.join(' or ')}); a media field (top level only) may set multiple ` +
  `and acceptedTypes; an object field may list its sub-fields ` +
  'in fields (same shape). key: letters, digits and _, starting with a letter or _.';

function fieldShape(depth: number): z.ZodType {
  const shape = {
    key: text('key', 'Field key, as used in record data.'),
    label: z.string().optional().describe('Human label (default: the key).'),
    type: z.enum(FIELD_TYPES, { error: named('type', FIELD_TYPES.join(', ')) }).describe('Field type.'),
    required: z.boolean().optional().describe('Records must have a value (default false).'),
    relationTo: z.string().optional().describe('relation only: "model:<slug>" of the target model.'),
    relationType: z.enum(RELATION_TYPES).optional().describe('relation only: hasOne (an id) or hasMany (an array of ids).'),
    indexed: z
      .boolean()
      .optional()
      .describe('Build a database index for filters and sorts on this field (text, number, boolean, date, relation).'),
    multiple: z.boolean().optional().describe('media only: an array of asset ids (default false: one id).'),
    acceptedTypes: z
      .array(z.enum(ACCEPTED_ASSET_TYPES, { error: named('acceptedTypes', ACCEPTED_ASSET_TYPES.join(', ')) }))
      .optional()
      .describe(`media only: the asset kinds it takes (${ACCEPTED_ASSET_TYPES.join(', ')}); empty or absent: all.`),
  };
  const withSubFields =
    depth > 0
      ? {
          ...shape,
          fields: z
            .array(fieldShape(depth - 1))
            .optional()
            .describe('object only: its sub-fields.'),
        }
      : shape;
  return z.object(withSubFields).describe(FIELD_DESCRIPTION);
}

export const fields = z.array(fieldShape(2), { error: named('fields', 'an array of field definitions') });

export const product = z
  .object({
    enabled: z.boolean(),
    skuField: z.string().optional().describe('The text field holding the SKU: unique among the records of the model.'),
    priceField: z.string().optional().describe('The number field holding the price.'),
  })
  .optional()
  .describe('Product settings: a unique SKU field and a price field.');

export const modelSettings = {
  displayField: z.string().optional().describe("The field shown as the record's title (default: the first text field)."),
  description: z.string().optional().describe('What the model holds.'),
  icon: z.string().optional().describe('An icon name or an emoji, at most 64 characters.'),
  color: z.string().optional().describe('A CSS hex colour: #rgb, #rgba, #rrggbb or #rrggbbaa.'),
  product,
  deliveryAccess: z
    .enum(['public', 'none'])
    .optional()
    .describe('"public": readable without a token through the delivery route; "none" (default): admin API only.'),
  drafts: z
    .boolean({ error: 'drafts: expected true or false' })
    .optional()
    .describe(
      'true: records keep a working copy that writes change and a published copy the delivery route serves ' +
        '(publish_records makes one the other); turning it on publishes every record as it is. false (default): ' +
        'every write is live; turning it off is refused while any record is not published.',
    ),
};

export const FILTER_DESCRIPTION =
  'Only the records that match, in the style of MongoDB queries: {"category": "shoes", "price": {"$gte": 10, "$lt": 100}}. ' +
  'Paths: a field key, "key.sub" into an object field, "key.<locale>" into a translatable field, or id, createdAt, updatedAt. ' +
  'A plain value means equality. Operators: $eq, $ne, $gt, $gte, $lt, $lte, $in, $nin (at most 1000 values), ' +
  '$exists (true/false), $contains and $startsWith (case-insensitive text; $contains on a hasMany relation: holds this id), ' +
  '$not (negates the conditions of one path); combine filters with $and, $or, $not: {"$or": [{"brand": "acme"}, {"price": {"$lt": 5}}]}. ' +
  '{"$eq": null} means missing. Limits: depth 5, 50 conditions.';

export const listArguments = {
  ...modelRef,
  filter: object('filter', FILTER_DESCRIPTION).optional(),
  limit: z
    .number({ error: named('limit', 'a whole number from 1 to 100') })
    .int({ error: 'limit: expected a whole number from 1 to 100' })
    .min(1, { error: 'limit: must be at least 1' })
    .max(MAX_LIST_LIMIT, { error: `limit: at most ${MAX_LIST_LIMIT} records per page` })
    .optional()
    .describe(`Records per page, 1 to ${MAX_LIST_LIMIT} (default 20). The answer says total and hasMore.`),
  offset: z
    .number({ error: named('offset', 'a whole number, 0 or more') })
    .int({ error: 'offset: expected a whole number, 0 or more' })
    .min(0, { error: 'offset: must be 0 or more' })
    .optional()
    .describe('Records to skip (default 0): the next page is offset + limit.'),
  sort: z
    .string({ error: named('sort', 'a string') })
    .optional()
    .describe(
      'Order: createdAt_asc (default), createdAt_desc, updatedAt_asc, updatedAt_desc, or <field>_asc / <field>_desc ' +
        '(short forms "price" / "-price") for a text, number, boolean or date field. Ties by id; records missing the field last.',
    ),
};

/** `status` of list_records: only records in these states. */
export const recordStatus = z
  .array(z.enum(['draft', 'published', 'changed'], { error: 'status: each status is "draft", "published" or "changed"' }), {
    error: named('status', 'an array of statuses ("draft", "published", "changed")'),
  })
  .min(1, { error: 'status: give at least 1 status, or leave status out for every record' })
  .optional()
  .describe(
    'Only records in these states (models with drafts): "draft" (never published, or unpublished), "published" ' +
      '(live as it is), "changed" (published, with changes not yet published). ["draft", "changed"]: everything ' +
      'publish_records would change. A model without drafts has only "published" records. total counts the matches.',
  );

export const readArguments = {
  populate: z
    .array(z.string(), { error: named('populate', 'an array of relation field paths') })
    .optional()
    .describe(
      'Relation fields whose ids are replaced by the target records ({id, modelId, data, createdAt, updatedAt}): ' +
        '["category", "category.parent"], depth at most 3.',
    ),
  locale: z
    .string({ error: named('locale', 'a locale code such as en, de or pt-BR') })
    .optional()
    .describe(
      'Turn every translatable value into one string: this locale (de-AT), else its language (de), else the ' +
        "workspace's default locale.",
    ),
};

export const importRows = z
  .array(z.record(z.string(), z.unknown(), { error: 'rows: every row must be a JSON object (the data of one record)' }), {
    error: named('rows', `an array of 1 to ${MAX_IMPORT_ROWS} JSON objects`),
  })
  .min(1, { error: 'rows: give at least 1 row' })
  .max(MAX_IMPORT_ROWS, {
    error: `rows: at most ${MAX_IMPORT_ROWS} rows per import_records call; send the rest in further calls, or use sync_records`,
  })
  .describe(
    `The data of the records to create, 1 to ${MAX_IMPORT_ROWS} objects. Each row is checked like create_record. ` +
      'A failing row does not stop the others.',
  );

export const syncRows = z
  .array(z.record(z.string(), z.unknown(), { error: 'rows: every row must be a JSON object (the data of one record)' }), {
    error: named('rows', `an array of up to ${MAX_SYNC_ROWS} JSON objects`),
  })
  .max(MAX_SYNC_ROWS, { error: `rows: at most ${MAX_SYNC_ROWS} rows per sync_records call` })
  .describe(
    `The full data of each record, up to ${MAX_SYNC_ROWS} objects; each must have the key field. A key given twice ` +
      'fails its second row.',
  );

/** The most assets one `list_media` page holds. */
export const MAX_MEDIA_LIMIT = 100;

const stringList = (name: string, what: string) =>
  z.array(z.string({ error: `${name}: every ${what} must be a string` }), { error: named(name, `an array of ${what}s`) });

export const uploadMediaArguments = {
  content: z
    .string({ error: named('content', 'the file as a base64 string') })
    .min(1, { error: 'content: must not be empty' })
    .optional()
    .describe("The file's bytes in base64 (a data: URL is accepted too). Give content with filename, or path."),
  filename: z
    .string({ error: named('filename', 'a string') })
    .min(1, { error: 'filename: must not be empty' })
    .optional()
    .describe('The name people see, such as "ball.jpg" (required with content; default the path\'s file name).'),
  path: z
    .string({ error: named('path', 'a string') })
    .min(1, { error: 'path: must not be empty' })
    .optional()
    .describe(
      'A file on the machine the MCP server runs on, read from there: only when it runs over stdio ' +
        '(content-service mcp); over HTTP send content instead.',
    ),
  alt: z
    .union([z.string(), z.record(z.string(), z.string())], {
      error: named('alt', 'a text, or an object of locale code to text such as {"en": "A red ball"}'),
    })
    .optional()
    .describe('Alt text: one text for the workspace\'s default locale, or {"en": "…", "de": "…"}.'),
  tags: stringList('tags', 'tag').optional().describe('Tags to find the asset by, such as ["summer", "red"].'),
};

export const listMediaArguments = {
  search: z
    .string({ error: named('search', 'a string') })
    .optional()
    .describe('Matches the filename, a tag or an alt text, case-insensitive.'),
  type: z
    .enum(['image', 'video', 'audio', 'document', 'other'], {
      error: named('type', '"image", "video", "audio", "document" or "other"'),
    })
    .optional()
    .describe('Only assets of this kind.'),
  tags: stringList('tags', 'tag').optional().describe('Only assets holding all of these tags.'),
  limit: z
    .number({ error: named('limit', `a whole number from 1 to ${MAX_MEDIA_LIMIT}`) })
    .int({ error: `limit: expected a whole number from 1 to ${MAX_MEDIA_LIMIT}` })
    .min(1, { error: 'limit: must be at least 1' })
    .max(MAX_MEDIA_LIMIT, { error: `limit: at most ${MAX_MEDIA_LIMIT} assets per page` })
    .optional()
    .describe(`Assets per page, 1 to ${MAX_MEDIA_LIMIT} (default 20), newest first. The answer says total and hasMore.`),
  offset: z
    .number({ error: named('offset', 'a whole number, 0 or more') })
    .int({ error: 'offset: expected a whole number, 0 or more' })
    .min(0, { error: 'offset: must be 0 or more' })
    .optional()
    .describe('Assets to skip (default 0): the next page is offset + limit.'),
};
