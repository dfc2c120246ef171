// The tools of record history (docs/lifecycle.md): record_history (revisions with the patch each made) and
// restore_revision.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { clientFor, withoutUndefined, type McpOptions } from './context.js';
import { answer, run } from './results.js';
import { listArguments, recordId, response, toolArguments } from './schemas.js';

/** A revision number argument: its refusals name it. */
function revisionNumber(name: string) {
  const error = `${name}: expected a whole number, 1 or more`;
  return z.number({ error }).int({ error }).min(1, { error });
}

const revision = revisionNumber('revision').describe('The revision number (from record_history).');

export function registerHistoryTools(server: McpServer, options: McpOptions): void {
  const log = options.log ?? (() => undefined);
  server.registerTool(
    'record_history',
    {
      title: 'Record history',
      description:
        "A record's revisions, newest first: {total, hasMore, items}, each {revision, operation (create, import, " +
        'patch, update, restore, discard, delete), data, createdAt, createdBy (an email)}. With "from", the RFC 6902 ' +
        'JSON Patch from that revision to "to" (default the newest) instead: [{op, path, value, oldValue}]. A deleted ' +
        "record's history is kept for 30 days.",
      inputSchema: toolArguments({
        id: recordId,
        limit: listArguments.limit,
        offset: listArguments.offset,
        from: revisionNumber('from').optional().describe('Answer the patch from this revision instead of the list.'),
        to: revisionNumber('to').optional().describe('With from: the revision the patch leads to (default the newest).'),
      }),
      annotations: { readOnlyHint: true },
    },
    (args, extra) =>
      run(async () => {
        const client = clientFor(options, extra);
        if (args.from !== undefined) return answer(await client.diffRecord(args.id, args.from, args.to));
        return answer(await client.recordHistory(args.id, withoutUndefined({ limit: args.limit, offset: args.offset })));
      }, log),
  );

  server.registerTool(
    'restore_revision',
    {
      title: 'Restore a revision',
      description:
        "Writes that revision's data as the record's next revision, checked against the model as it is now (a value " +
        'that no longer fits is refused naming the field); a deleted record comes back with its id. Needs an editor, ' +
        'admin or owner token; counts against the write budget. Answers {restored: id, revision} (response "full": ' +
        'the record).',
      inputSchema: toolArguments({ id: recordId, revision, response }),
    },
    (args, extra) =>
      run(async () => {
        const record = await clientFor(options, extra).restoreRecord(args.id, args.revision);
        return answer(args.response === 'full' ? record : { restored: record.id, revision: record.revision });
      }, log),
  );
}
