// The tools of records: list_records, get_record, create_record, update_record, patch_record, delete_record,
// import_records and sync_records (the client toolkit's load by key).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { JsonObject, ModelRecord, RecordFilter } from '../client/types.js';
import { clientFor, findModel, resolveModel, withoutUndefined, type McpOptions } from './context.js';
import { answer, ArgumentError, refusal, run } from './results.js';
import {
  importRows,
  listArguments,
  MAX_IMPORT_ROWS,
  modelRef,
  readArguments,
  recordData,
  recordStatus,
  recordId,
  response,
  syncRows,
  text,
  toolArguments,
} from './schemas.js';

const ROLE_NOTE = 'Needs an editor, admin or owner token; counts against the write budget (over it, the call waits).';

/** The short answer of a record write, or the record. */
function written(verb: string, record: ModelRecord, shape: 'ack' | 'full' | undefined) {
  return answer(shape === 'full' ? record : { [verb]: record.id, modelId: record.modelId, updatedAt: record.updatedAt });
}

type McpLog = NonNullable<McpOptions['log']>;

function noRecord(id: string) {
  return new ArgumentError(`id: no record with id "${id}" in this workspace`);
}

export function registerRecordTools(server: McpServer, options: McpOptions): void {
  const log = options.log ?? (() => undefined);
  registerReadTools(server, options, log);
  registerWriteTools(server, options, log);
  registerLoadTools(server, options, log);
}

/** Records read: a page of a model's, or one by id. */
function registerReadTools(server: McpServer, options: McpOptions, log: McpLog): void {
  server.registerTool(
    'list_records',
    {
      title: 'List records',
      description:
        'One page of the records of a model: {total, hasMore, items}, each item {id, modelId, data, createdAt, ' +
        'updatedAt, status, …}. Filter, pick by status (draft, published, changed), sort, page with limit/offset, ' +
        'read one locale, populate relations.',
      inputSchema: toolArguments({ ...listArguments, status: recordStatus, ...readArguments }),
      annotations: { readOnlyHint: true },
    },
    (args, extra) =>
      run(async () => {
        const client = clientFor(options, extra);
        const model = await resolveModel(client, args);
        const { filter, limit, offset, sort, populate, locale, status } = args;
        const list = await client.listRecords(
          model.id,
          withoutUndefined({ filter: filter as RecordFilter | undefined, limit, offset, sort, populate, locale, status }),
        );
        return answer(list);
      }, log),
  );

  server.registerTool(
    'get_record',
    {
      title: 'Get a record',
      description: 'One record by id: {id, modelId, data, createdAt, updatedAt, createdBy, updatedBy}.',
      inputSchema: toolArguments({ id: recordId, ...readArguments }),
      annotations: { readOnlyHint: true },
    },
    (args, extra) =>
      run(async () => {
        const { id, populate, locale } = args;
        const record = await clientFor(options, extra).getRecord(id, withoutUndefined({ populate, locale }));
        if (!record) throw noRecord(id);
        return answer(record);
      }, log),
  );
}

/** One record written: create, replace, patch, delete. */
function registerWriteTools(server: McpServer, options: McpOptions, log: McpLog): void {
  server.registerTool(
    'create_record',
    {
      title: 'Create a record',
      description:
        `Creates one record of a model. Refused (isError, nothing stored) with the reason naming the field, e.g. ` +
        `"price: expected a number". ${ROLE_NOTE} Answers {created: id, …} (response "full": the record).`,
      inputSchema: toolArguments({ ...modelRef, data: recordData('data', 'The record data.'), response }),
    },
    (args, extra) =>
      run(async () => {
        const client = clientFor(options, extra);
        const model = await resolveModel(client, args);
        return written('created', await client.createRecord(model.id, args.data), args.response);
      }, log),
  );

  registerWriteById(server, options, log, {
    name: 'update_record',
    title: 'Replace a record',
    description:
      'Replaces the whole data of a record: fields left out are removed (use patch_record to change some fields). ' +
      `${ROLE_NOTE} Answers {updated: id, …} (response "full": the record).`,
    data: 'The complete new data.',
    write: 'updateRecord',
    verb: 'updated',
  });

  registerWriteById(server, options, log, {
    name: 'patch_record',
    title: 'Patch a record',
    description:
      'Changes some fields of a record, as a JSON merge patch (RFC 7386): keys left out keep their value, a key ' +
      'set to null is removed, a translatable or object value is merged key by key (null inside removes that key), ' +
      `anything else (arrays too) replaces the old value. The result must still be valid. ${ROLE_NOTE} ` +
      'Answers {patched: id, …} (response "full": the record).',
    data: 'The merge patch: only the keys to change, null to remove.',
    write: 'patchRecord',
    verb: 'patched',
  });

  server.registerTool(
    'delete_record',
    {
      title: 'Delete a record',
      description:
        'Deletes a record. Refused while other records refer to it through a relation, unless force is true (then ' +
        `those references are removed). ${ROLE_NOTE} Answers {id, deleted}.`,
      inputSchema: toolArguments({
        id: recordId,
        force: z.boolean({ error: 'force: expected true or false' }).optional().describe('Also remove references to it.'),
      }),
      annotations: { destructiveHint: true },
    },
    (args, extra) =>
      run(async () => {
        const result = await clientFor(options, extra).deleteRecord(args.id, withoutUndefined({ force: args.force }));
        return answer(result);
      }, log),
  );
}

interface WriteByIdTool {
  name: string;
  title: string;
  description: string;
  /** What the `data` argument holds. */
  data: string;
  write: 'updateRecord' | 'patchRecord';
  /** The key of the short answer (`written`). */
  verb: string;
}

/** A tool that writes the data of one record given by id (update_record, patch_record). */
function registerWriteById(server: McpServer, options: McpOptions, log: McpLog, tool: WriteByIdTool): void {
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: toolArguments({ id: recordId, data: recordData('data', tool.data), response }),
      annotations: { idempotentHint: true },
    },
    (args, extra) =>
      run(async () => {
        const record = await clientFor(options, extra)[tool.write](args.id, args.data);
        if (!record) throw noRecord(args.id);
        return written(tool.verb, record, args.response);
      }, log),
  );
}

/** Many records at once: import (inserts) and sync by key. */
function registerLoadTools(server: McpServer, options: McpOptions, log: McpLog): void {
  server.registerTool(
    'import_records',
    {
      title: 'Import records',
      description:
        `Creates up to ${MAX_IMPORT_ROWS} records in one call (more: several calls, or sync_records). Answers ` +
        '{importedCount, errors: [{row, message}]}: row is the 1-based position in rows of a row that was refused and ' +
        'not stored (message names the field, e.g. "price: expected a number"); every other row is stored. Import ' +
        `only inserts: sending the same rows again stores them twice (sync_records loads by key). ${ROLE_NOTE} ` +
        'Each row counts as one write.',
      inputSchema: toolArguments({ ...modelRef, rows: importRows }),
    },
    (args, extra) =>
      run(async () => {
        const client = clientFor(options, extra);
        const model = await resolveModel(client, args);
        return answer(await client.importRecords(model.id, args.rows));
      }, log),
  );

  server.registerTool(
    'sync_records',
    {
      title: 'Sync records by key',
      description:
        'Loads rows by a key field, idempotently: rows whose key is new are created, existing records (same key) get ' +
        'only their changed fields patched, unchanged ones are left alone; with prune, records whose key is not in ' +
        'rows are deleted. Sending the same rows again changes nothing. Answers {total, created, updated, unchanged, ' +
        'deleted, failed, errors: [{row, message}]} (row: 1-based position in rows of a row not stored). ' +
        ROLE_NOTE,
      inputSchema: toolArguments({
        modelSlug: text('modelSlug', 'The model slug (or id).', 'modelSlug: required (a string): the model to load into'),
        rows: syncRows,
        key: text(
          'key',
          'The field that identifies a record (the SKU, or any text or number field with one value per record).',
          'key: required (a string): the field that identifies a row, e.g. "sku"',
        ),
        prune: z
          .boolean({ error: 'prune: expected true or false' })
          .optional()
          .describe('Also delete the records whose key is not in rows (default false).'),
      }),
      annotations: { idempotentHint: true },
    },
    (args, extra) =>
      run(async () => {
        const client = clientFor(options, extra);
        const model = await findModel(client, 'modelSlug', args.modelSlug);
        const summary = await client.sync<JsonObject>(model, args.rows, { key: args.key, prune: args.prune ?? false });
        const errors = summary.errors.map(({ row, message }) => ({ row, message }));
        const { total, created, updated, unchanged, deleted, failed, duplicateKeysInStore } = summary;
        const result = { total, created, updated, unchanged, deleted, failed, errors, duplicateKeysInStore };
        if (summary.stopped) return refusal(`${summary.stopped.message} (${JSON.stringify(result)})`);
        return answer(result);
      }, log),
  );
}
