// The tools of drafts and publishing (docs/lifecycle.md): publish_records and unpublish_records, each one
// all-or-nothing call of the admin API for up to 1000 records.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { MAX_PUBLISH_IDS } from '../client/client.js';
import type { PublishResult } from '../client/types.js';
import { clientFor, type McpOptions } from './context.js';
import { answer, run } from './results.js';
import { response, toolArguments } from './schemas.js';

export const recordIds = z
  .array(z.string({ error: 'ids: every id must be a string (a record id)' }).min(1, { error: 'ids: an id must not be empty' }), {
    error: (issue) =>
      issue.input === undefined ? 'ids: required (an array of record ids)' : 'ids: expected an array of record ids',
  })
  .min(1, { error: 'ids: give at least 1 id' })
  .max(MAX_PUBLISH_IDS, {
    error: `ids: at most ${MAX_PUBLISH_IDS} ids per call (one call is all or nothing); send the rest in further calls`,
  })
  .describe(
    `Ids of the records (from list_records or get_record), 1 to ${MAX_PUBLISH_IDS}, of any models. All or nothing: ` +
      'an unknown id refuses the whole call ("ids.<position>: record … not found") and nothing changes.',
  );

const ROLE_NOTE = 'Needs an editor, admin or owner token; each id counts as one write of the budget.';
const ANSWER_NOTE =
  'Answers {records: [{id, status}], unpublishedTargets} in the order of ids (response "full": the whole records).';

/** The short answer: each record's id and status, and the targets still to publish. */
function published(result: PublishResult, shape: 'ack' | 'full' | undefined) {
  if (shape === 'full') return answer(result);
  const records = result.records.map(({ id, status }) => ({ id, status }));
  return answer({ records, unpublishedTargets: result.unpublishedTargets });
}

export function registerPublishingTools(server: McpServer, options: McpOptions): void {
  const log = options.log ?? (() => undefined);
  server.registerTool(
    'publish_records',
    {
      title: 'Publish records',
      description:
        'Publishes records of models with drafts: each working copy as it is becomes the published copy the ' +
        'delivery route serves (status "published"). A record of a model without drafts is already live and is ' +
        "answered as published. unpublishedTargets lists the ids that the records' relation fields point at which " +
        'are not published themselves (the delivery route shows them as null): publish those too. ' +
        `${ROLE_NOTE} ${ANSWER_NOTE}`,
      inputSchema: toolArguments({ ids: recordIds, response }),
      annotations: { idempotentHint: true },
    },
    (args, extra) => run(async () => published(await clientFor(options, extra).publishRecords(args.ids), args.response), log),
  );

  server.registerTool(
    'unpublish_records',
    {
      title: 'Unpublish records',
      description:
        'Removes the published copies of records of models with drafts: the delivery route no longer serves them, ' +
        'their working copies stay (status "draft"; publish_records brings them back). unpublishedTargets is always ' +
        `empty here. ${ROLE_NOTE} ${ANSWER_NOTE}`,
      inputSchema: toolArguments({ ids: recordIds, response }),
      annotations: { idempotentHint: true, destructiveHint: true },
    },
    (args, extra) => run(async () => published(await clientFor(options, extra).unpublishRecords(args.ids), args.response), log),
  );
}
