// content-service publish --model SLUG (--all-changed | --ids a,b,c): publishes records of a model with drafts
// through the admin API, in calls of at most 1000 ids (and at most the write budget).
import type { Command } from 'commander';
import { MAX_PUBLISH_IDS, type ContentClient } from '../client/client.js';
import { ContentServiceError } from '../client/errors.js';
import { idsWithStatus, NOT_PUBLISHED } from '../client/publishing.js';
import type { ModelDefinition } from '../client/types.js';
import { connectionOptions, makeClient, runCommand, UsageError, type ConnectionOptions } from './client-options.js';

interface PublishOptions extends ConnectionOptions {
  model: string;
  allChanged?: boolean;
  ids?: string;
  json?: boolean;
  quiet?: boolean;
}

/** How many of the targets that are not published the summary names (the rest are counted). */
const TARGETS_SHOWN = 20;

export function registerPublish(program: Command): void {
  connectionOptions(
    program
      .command('publish')
      .summary(
        'Publish records of a model with drafts: --all-changed (every record not published, status changed or draft) ' +
          'or --ids a,b,c; through the admin API, in calls of at most 1000',
      )
      .description(
        'Publish records of a model with drafts: their working copies become what the delivery route serves. ' +
          '--all-changed publishes every record that is not published as it is: status "changed" (published, then ' +
          'edited) and status "draft" (never published, or unpublished). --ids publishes those records. Sent in ' +
          `calls of at most ${MAX_PUBLISH_IDS} ids; each call is all or nothing, the run is not: when a call fails, the ` +
          'calls before it stay published and the command says how many. Each record costs one write of the budget.',
      )
      .requiredOption('--model <slug>', 'slug of the model')
      .option('--all-changed', 'every record whose status is changed or draft (everything not published)')
      .option('--ids <ids>', 'comma-separated ids of records of the model')
      .option('--json', 'print {model, published, ids, unpublishedTargets} as JSON instead of a sentence')
      .option('--quiet', 'no progress lines on stderr'),
  ).action(async (options: PublishOptions) => runCommand(() => runPublish(options)));
}

async function runPublish(options: PublishOptions): Promise<number> {
  if ((options.allChanged === true) === (options.ids !== undefined)) {
    throw new UsageError('give --all-changed or --ids a,b,c (one of them): which records to publish');
  }
  const given = options.ids === undefined ? undefined : parseIds(options.ids);
  const client = makeClient(options);
  const model = await client.findModel(options.model).catch((error: unknown) => {
    if (error instanceof ContentServiceError && error.code === 'NOT_FOUND') throw new UsageError(error.message);
    throw error;
  });
  const ids = given ?? (await notPublishedIds(client, model));
  if (given) await checkIdsOfModel(client, model, given);
  const progress = options.quiet ? () => undefined : (line: string) => process.stderr.write(`${line}\n`);
  const outcome = await publishInCalls(client, ids, { skipGone: given === undefined, progress });
  const targets = [...outcome.unpublishedTargets].sort();
  const count = outcome.published.length;
  if (options.json) {
    const result = { model: model.slug, published: count, ids: outcome.published, unpublishedTargets: targets };
    process.stdout.write(JSON.stringify(result) + '\n');
  } else if (count > 0 || !outcome.failure) {
    const gone = outcome.gone > 0 ? ` (${outcome.gone} listed records were deleted meanwhile and left out)` : '';
    process.stdout.write(summary(model, count, options.allChanged === true) + gone + '\n');
    if (targets.length > 0) process.stdout.write(targetsLine(targets) + '\n');
  }
  if (!outcome.failure) return 0;
  const done =
    count === 0
      ? 'nothing was published'
      : `${count} of ${ids.length} records were published by the calls before it, the rest were not (run the command again to publish them)`;
  process.stderr.write(`Error: ${outcome.failure.message}; ${done}\n`);
  return 1;
}

/** `a, b,,c` → `['a', 'b', 'c']`, each once; an empty list is a usage error. */
function parseIds(text: string): string[] {
  const ids = [...new Set(text.split(',').map((id) => id.trim()))].filter((id) => id !== '');
  if (ids.length === 0) throw new UsageError('--ids: give at least one record id (a,b,c)');
  return ids;
}

/** Every record of the model that is not published, oldest first (no record of a model without drafts). */
async function notPublishedIds(client: ContentClient, model: ModelDefinition): Promise<string[]> {
  if (!model.drafts) return [];
  return idsWithStatus(client, model.id, NOT_PUBLISHED);
}

/** Refuses (before anything is published) an id that is no record of the model: the server would publish it anyway. */
async function checkIdsOfModel(client: ContentClient, model: ModelDefinition, ids: readonly string[]): Promise<void> {
  const records = await client.getMany(ids);
  const wrong = ids.flatMap((id, index) => {
    const record = records[index];
    if (!record) return [`--ids: no record "${id}" in this workspace`];
    return record.modelId === model.id ? [] : [`--ids: record "${id}" is not a record of model "${model.slug}"`];
  });
  if (wrong.length > 0) {
    throw new ContentServiceError(
      `${wrong.slice(0, 5).join('; ')}${wrong.length > 5 ? ` (and ${wrong.length - 5} more)` : ''}; nothing was published`,
      {
        code: 'NOT_FOUND',
        field: 'ids',
      },
    );
  }
}

interface PublishOutcome {
  published: string[];
  unpublishedTargets: Set<string>;
  /** Listed records deleted before their call (--all-changed only): left out, not a failure. */
  gone: number;
  /** The refusal of the call that failed; the calls before it were made. */
  failure?: ContentServiceError;
}

/**
 * Publishes `ids` in calls of at most MAX_PUBLISH_IDS, and at most the write budget: a call costing more than the
 * whole budget (COST_EXCEEDS_BUDGET, nothing written) is sent again in calls of the budget the answer names. A 429 is
 * waited out by the client. With `skipGone`, an id the server no longer knows (deleted since it was listed) is left
 * out and its call sent again. Any other refusal stops the run; what was published before it stays published.
 */
async function publishInCalls(
  client: ContentClient,
  ids: readonly string[],
  options: { skipGone: boolean; progress: (line: string) => void },
): Promise<PublishOutcome> {
  const outcome: PublishOutcome = { published: [], unpublishedTargets: new Set(), gone: 0 };
  const pending = [...ids];
  let size = MAX_PUBLISH_IDS;
  for (let start = 0; start < pending.length;) {
    const chunk = pending.slice(start, start + size);
    try {
      const result = await client.publishRecords(chunk);
      for (const record of result.records) outcome.published.push(record.id);
      for (const target of result.unpublishedTargets) outcome.unpublishedTargets.add(target);
    } catch (error) {
      if (!(error instanceof ContentServiceError)) throw error;
      const budget = Number(error.extensions.budget);
      if (error.code === 'COST_EXCEEDS_BUDGET' && Number.isInteger(budget) && budget >= 1 && budget < chunk.length) {
        size = budget;
        continue;
      }
      const missing = error.code === 'NOT_FOUND' ? /^ids\.(\d+)$/.exec(error.field ?? '') : null;
      if (options.skipGone && missing && Number(missing[1]) < chunk.length) {
        pending.splice(start + Number(missing[1]), 1);
        outcome.gone += 1;
        continue;
      }
      outcome.failure = error;
      return outcome;
    }
    start += chunk.length;
    if (pending.length > size) options.progress(`publish: ${start} of ${pending.length} records published`);
  }
  // A target that a later call of the run published is published now.
  for (const id of outcome.published) outcome.unpublishedTargets.delete(id);
  return outcome;
}

function summary(model: ModelDefinition, count: number, allChanged: boolean): string {
  const records = `${count} record${count === 1 ? '' : 's'}`;
  if (count > 0 || !allChanged) return `Published ${records} of model "${model.slug}"`;
  if (!model.drafts) return `Published 0 records: model "${model.slug}" has no drafts (every write is live)`;
  return `Published 0 records: every record of model "${model.slug}" is published as it is`;
}

function targetsLine(targets: readonly string[]): string {
  const shown = targets.slice(0, TARGETS_SHOWN).join(', ');
  const more = targets.length > TARGETS_SHOWN ? ` and ${targets.length - TARGETS_SHOWN} more` : '';
  return (
    `Not published, but pointed at by relations of these records (the delivery route shows them as null): ` +
    `${shown}${more}; publish them too (content-service publish --model <their model> --ids …)`
  );
}
