// The tools of schedules (docs/lifecycle.md): schedule (publish or unpublish records together at a set time),
// list_schedules (what is pending, what was done or failed, and why) and cancel_schedule (undo one still pending).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ContentServiceError } from '../client/errors.js';
import { clientFor, withoutUndefined, type McpOptions } from './context.js';
import { recordIds } from './publishing-tools.js';
import { answer, ArgumentError, run } from './results.js';
import { MAX_LIST_LIMIT, text, toolArguments } from './schemas.js';

const SCHEDULE_SHAPE =
  'A schedule is {id, action, at, ids, status, error, createdAt, createdBy, doneAt}; status is "pending" until its ' +
  'time, then "done", or "failed" (error names the id that was gone; nothing changed), or "cancelled".';

const action = z
  .enum(['publish', 'unpublish'], { error: 'action: expected "publish" or "unpublish"' })
  .describe('"publish": the working copies as they are at that time become live; "unpublish": the records go offline.');

const at = text(
  'at',
  'When, as an ISO 8601 date-time with its offset: "2026-05-01T09:00:00Z" or "2026-05-01T11:00:00+02:00". In the ' +
    'future, at most 5 years ahead. The server carries it out within about a second of this time.',
  'at: required (an ISO 8601 date-time such as "2026-05-01T09:00:00Z")',
);

const statusFilter = z
  .enum(['pending', 'done', 'failed', 'cancelled'], { error: 'status: expected "pending", "done", "failed" or "cancelled"' })
  .optional()
  .describe('Only the schedules in this state (default: all).');

const limit = z
  .number({ error: 'limit: expected a whole number from 1 to 100' })
  .int({ error: 'limit: expected a whole number from 1 to 100' })
  .min(1, { error: 'limit: must be at least 1' })
  .max(MAX_LIST_LIMIT, { error: `limit: at most ${MAX_LIST_LIMIT} schedules per page` })
  .optional()
  .describe(`Schedules per page, 1 to ${MAX_LIST_LIMIT} (default 20). The answer says total and hasMore.`);

const offset = z
  .number({ error: 'offset: expected a whole number, 0 or more' })
  .int({ error: 'offset: expected a whole number, 0 or more' })
  .min(0, { error: 'offset: must be 0 or more' })
  .optional()
  .describe('Schedules to skip (default 0): the next page is offset + limit.');

/**
 * The admin API names the fields of its input object (`input.at: must be in the future`, `input.ids.2: record …
 * not found`); the tool's arguments are those fields, so the refusal names the argument (`at: …`, `ids.2: …`).
 */
async function byArgument<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof ContentServiceError && error.message.startsWith('input.')) {
      throw new ArgumentError(error.message.slice('input.'.length));
    }
    throw error;
  }
}

export function registerScheduleTools(server: McpServer, options: McpOptions): void {
  const log = options.log ?? (() => undefined);
  server.registerTool(
    'schedule',
    {
      title: 'Schedule a publish or unpublish',
      description:
        'Publishes or unpublishes records together at a set time (all ids at once, in one transaction, on their ' +
        'working copies as they are then); for models with drafts. Refused (isError, nothing scheduled) when at is ' +
        'in the past or more than 5 years ahead, or an id is unknown ("ids.<position>: record … not found"). ' +
        'Needs an editor, admin or owner token. Answers the new schedule (status "pending"); list_schedules shows ' +
        `it done, cancel_schedule undoes it before its time. ${SCHEDULE_SHAPE}`,
      inputSchema: toolArguments({ ids: recordIds, action, at }),
    },
    (args, extra) => run(async () => answer(await byArgument(clientFor(options, extra).scheduleRecords(args))), log),
  );

  server.registerTool(
    'list_schedules',
    {
      title: 'List schedules',
      description:
        "One page of the workspace's schedules, by time: {total, hasMore, items}. Use it to see what is pending, " +
        `and whether a schedule was done or failed (and why). ${SCHEDULE_SHAPE}`,
      inputSchema: toolArguments({ status: statusFilter, limit, offset }),
      annotations: { readOnlyHint: true },
    },
    (args, extra) => run(async () => answer(await clientFor(options, extra).listSchedules(withoutUndefined(args))), log),
  );

  server.registerTool(
    'cancel_schedule',
    {
      title: 'Cancel a schedule',
      description:
        'Cancels a pending schedule: at its time nothing happens. Refused once it is done, failed or cancelled. ' +
        `Needs an editor, admin or owner token. Answers the schedule (status "cancelled"). ${SCHEDULE_SHAPE}`,
      inputSchema: toolArguments({ id: text('id', 'The schedule id (from schedule or list_schedules).') }),
    },
    (args, extra) => run(async () => answer(await clientFor(options, extra).cancelSchedule(args.id)), log),
  );
}
