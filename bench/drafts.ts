/**
 * Drafts and schedules (docs/lifecycle.md, "Drafts" and "Schedules"). One server per database on a fresh database:
 *
 * 1. Publish: `record.publish(ids)` of 1000 draft records in one call on a model with `drafts: true`, each run a
 *    fresh 1000 never published: records/s, median of `--publish-runs` (7) after one warm-up call (goal ≥ 20,000
 *    records/s on SQLite; PostgreSQL's is printed against the same figure, for information).
 * 2. Delivery list: two public models of `--records` (100,000) rows each, one without drafts and one created
 *    without drafts, imported, then turned to `drafts: true` (which publishes every record). Then
 *    `POST /public/{org}/{ws}/graphql` `records(modelSlug, limit: 20, offset)` at a few offsets, `--rounds` (150)
 *    rounds, each request of a round alternating the two models: server p50 and p95 of each, and the drafts
 *    model's over the plain one's (goal ≤ 1.2×), for the first page and for each offset page (all of them mixed in
 *    the JSON's `overall`).
 * 3. Schedule lateness: `--schedules` (10) schedules, each publishing 5 draft records, at now + 1.5 s, 1.7 s, …;
 *    `record.schedules(status: "done")` polled every 100 ms until all are done: max and p50 of doneAt − at (goal
 *    < 2 s; the server looks for due schedules every 500 ms).
 *
 *   node --import tsx bench/drafts.ts [--db sqlite|postgres] [--records 100000] [--rounds 150] [--publish-runs 7] [--schedules 10]
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Args } from './lib/args.js';
import { importRows, productModelInput, skuPrefix } from './lib/catalog.js';
import type { GqlClient } from './lib/client.js';
import { runBenchmark, startService, type Service } from './lib/run.js';
import { percentile, spread, type Spread } from './lib/stats.js';
import { fmtInt, fmtMs, fmtRatio, fmtSpread, printTable } from './lib/table.js';

const GOAL_PUBLISH_PER_SECOND = 20_000;
const GOAL_LIST_RATIO = 1.2;
const GOAL_LATENESS_MS = 2_000;
/** The workspace bench/lib/server.ts bootstraps. */
const DELIVERY_PATH = '/public/bench/main/graphql';
const PUBLISH_BATCH = 1000;
const RECORDS_A_SCHEDULE = 5;

const CREATE_MODEL = 'mutation ($input: CreateModelDefinitionInput!) { model { create(input: $input) { id } } }';
const UPDATE_MODEL =
  'mutation ($input: UpdateModelDefinitionInput!) { model { update(input: $input) { id drafts recordCount } } }';
const IDS =
  'query ($modelId: ID!, $offset: Int) { record { list(modelId: $modelId, limit: 100, offset: $offset) { items { id } } } }';
const PUBLISH = 'mutation ($ids: [ID!]!) { record { publish(ids: $ids) { unpublishedTargets } } }';
const SCHEDULE = 'mutation ($input: ScheduleInput!) { record { schedule(input: $input) { id at } } }';
const DONE = 'query { record { schedules(status: "done", limit: 100) { total items { id at doneAt } } } }';
const DELIVERY_LIST =
  'query ($slug: String!, $offset: Int) { public { model { records(modelSlug: $slug, limit: 20, offset: $offset) { total hasMore items { id data createdAt updatedAt } } } } }';

interface Options {
  records: number;
  rounds: number;
  publishRuns: number;
  schedules: number;
}

function readOptions(args: Args): Options {
  return {
    records: args.int('records', 100_000),
    rounds: args.int('rounds', 150),
    publishRuns: args.int('publish-runs', 7),
    schedules: args.int('schedules', 10),
  };
}

const status = (met: boolean) => (met ? 'met' : 'MISSED');
const loads = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

async function createModel(client: GqlClient, slug: string, drafts: boolean): Promise<string> {
  const input = { ...productModelInput(slug, 'public'), drafts };
  const result = await client.request<{ model: { create: { id: string } } }>(CREATE_MODEL, { input });
  return result.data.model.create.id;
}

async function recordIds(client: GqlClient, modelId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let offset = 0; ids.length < count; offset += 100) {
    const page = await client.request<{ record: { list: { items: { id: string }[] } } }>(IDS, { modelId, offset });
    if (page.data.record.list.items.length === 0) break;
    ids.push(...page.data.record.list.items.map((item) => item.id));
  }
  return ids.slice(0, count);
}

interface PublishRun {
  clientMs: number;
  serverMs: number;
  recordsPerSecond: number;
}

/** 1: publish calls of 1000 never-published records, one at a time, the first not counted. */
async function measurePublish(service: Service, client: GqlClient, options: Options) {
  const modelId = await createModel(client, 'draftpub', true);
  const calls = options.publishRuns + 1;
  const rows = calls * PUBLISH_BATCH + options.schedules * RECORDS_A_SCHEDULE;
  await importRows(client, { modelId, prefix: skuPrefix(), rows, concurrency: 2 });
  const ids = await recordIds(client, modelId, rows);
  const runs: PublishRun[] = [];
  for (let call = 0; call < calls; call++) {
    const batch = ids.slice(call * PUBLISH_BATCH, (call + 1) * PUBLISH_BATCH);
    const started = performance.now();
    const result = await client.request<{ record: { publish: { unpublishedTargets: string[] } } }>(PUBLISH, {
      ids: batch,
    });
    const clientMs = performance.now() - started;
    const [serverMs] = await service.server.serverTimes([result.requestId]);
    const run = { clientMs, serverMs: serverMs!, recordsPerSecond: batch.length / (clientMs / 1000) };
    console.log(
      `publish ${call === 0 ? 'warm-up' : `run ${call}  `}: ${fmtInt(run.recordsPerSecond)} records/s ` +
        `(${fmtMs(clientMs)} ms; server ${fmtMs(run.serverMs)} ms)`,
    );
    if (call > 0) runs.push(run);
  }
  return { runs, leftover: ids.slice(calls * PUBLISH_BATCH) };
}

interface ListCell {
  offset: number;
  plain: number[];
  drafts: number[];
  plainClient: number[];
  draftsClient: number[];
}

/** 2: the two models, then alternating delivery pages of each. */
async function measureList(service: Service, client: GqlClient, options: Options) {
  const plainId = await createModel(client, 'plain', false);
  const draftsId = await createModel(client, 'drafted', false);
  const plainImport = await importRows(client, {
    modelId: plainId,
    prefix: skuPrefix(),
    rows: options.records,
    concurrency: 2,
  });
  const draftsImport = await importRows(client, {
    modelId: draftsId,
    prefix: skuPrefix(),
    rows: options.records,
    concurrency: 2,
  });
  const turnOnStarted = performance.now();
  const turned = await client.request<{ model: { update: { drafts: boolean; recordCount: number } } }>(UPDATE_MODEL, {
    input: { id: draftsId, drafts: true },
  });
  const turnOnMs = performance.now() - turnOnStarted;
  if (!turned.data.model.update.drafts) throw new Error('model.update(drafts: true) did not turn drafts on');
  console.log(
    `imported ${fmtInt(options.records)} rows into each (${fmtInt(plainImport.rows / (plainImport.ms / 1000))} and ` +
      `${fmtInt(draftsImport.rows / (draftsImport.ms / 1000))} rows/s); drafts turned on (publishing every record) ` +
      `in ${fmtMs(turnOnMs)} ms`,
  );
  const offsets = [0, 0, 20, 1000, Math.max(0, Math.floor(options.records / 2) - 20)];
  const cells: ListCell[] = [...new Set(offsets)].map((offset) => ({
    offset,
    plain: [],
    drafts: [],
    plainClient: [],
    draftsClient: [],
  }));
  const bodies = (slug: string) =>
    new Map(
      cells.map((cell) => [cell.offset, JSON.stringify({ query: DELIVERY_LIST, variables: { slug, offset: cell.offset } })]),
    );
  const plainBodies = bodies('plain');
  const draftsBodies = bodies('drafted');
  const delivery = service.client(1);
  // Both models must serve every record, the drafts one its published copies.
  for (const [slug, body] of [
    ['plain', plainBodies.get(0)!],
    ['drafted', draftsBodies.get(0)!],
  ] as const) {
    const page = await delivery.sendDelivery<{ public: { model: { records: { total: number; items: unknown[] } } } }>(
      DELIVERY_PATH,
      body,
    );
    const { total, items } = page.data.public.model.records;
    if (total !== options.records || items.length !== 20)
      throw new Error(`delivery ${slug}: total ${total}, ${items.length} items (expected ${options.records}, 20)`);
  }
  const requestIds: { cell: ListCell; drafts: boolean; id: string; ms: number }[] = [];
  const warmUp = 20;
  for (let round = 0; round < options.rounds + warmUp; round++) {
    for (const offset of offsets) {
      const cell = cells.find((each) => each.offset === offset)!;
      const order = (round + offsets.indexOf(offset)) % 2 === 0 ? [false, true] : [true, false];
      for (const drafts of order) {
        const body = (drafts ? draftsBodies : plainBodies).get(offset)!;
        const result = await delivery.sendDelivery(DELIVERY_PATH, body);
        if (round >= warmUp) requestIds.push({ cell, drafts, id: result.requestId, ms: result.ms });
      }
    }
  }
  const serverTimes = await service.server.serverTimes(requestIds.map((entry) => entry.id));
  requestIds.forEach((entry, index) => {
    const server = serverTimes[index]!;
    if (!Number.isFinite(server)) return;
    (entry.drafts ? entry.cell.drafts : entry.cell.plain).push(server);
    (entry.drafts ? entry.cell.draftsClient : entry.cell.plainClient).push(entry.ms);
  });
  const all = (key: 'plain' | 'drafts') => cells.flatMap((cell) => cell[key]);
  const figures = (plain: number[], drafts: number[]) => ({
    requests: plain.length + drafts.length,
    plainP50: percentile(plain, 50),
    draftsP50: percentile(drafts, 50),
    plainP95: percentile(plain, 95),
    draftsP95: percentile(drafts, 95),
    ratioP50: percentile(drafts, 50) / percentile(plain, 50),
    ratioP95: percentile(drafts, 95) / percentile(plain, 95),
  });
  return {
    plainImportRowsPerSecond: plainImport.rows / (plainImport.ms / 1000),
    draftsImportRowsPerSecond: draftsImport.rows / (draftsImport.ms / 1000),
    turnOnMs,
    overall: figures(all('plain'), all('drafts')),
    byOffset: cells.map((cell) => ({
      offset: cell.offset,
      ...figures(cell.plain, cell.drafts),
      plainClientP50: percentile(cell.plainClient, 50),
      draftsClientP50: percentile(cell.draftsClient, 50),
    })),
  };
}

/** 3: schedules a little ahead, then how late each was carried out. */
async function measureSchedules(client: GqlClient, ids: string[], options: Options) {
  const base = Date.now() + 1500;
  const created: string[] = [];
  for (let index = 0; index < options.schedules; index++) {
    const batch = ids.slice(index * RECORDS_A_SCHEDULE, (index + 1) * RECORDS_A_SCHEDULE);
    const at = new Date(base + index * 200).toISOString();
    const result = await client.request<{ record: { schedule: { id: string } } }>(SCHEDULE, {
      input: { ids: batch, action: 'publish', at },
    });
    created.push(result.data.record.schedule.id);
  }
  const deadline = base + options.schedules * 200 + 20_000;
  let done: { id: string; at: string; doneAt: string | null }[] = [];
  while (Date.now() < deadline) {
    const list = await client.request<{ record: { schedules: { items: typeof done } } }>(DONE);
    done = list.data.record.schedules.items.filter((item) => created.includes(item.id));
    if (done.length === created.length) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (done.length < created.length) console.log(`warning: ${created.length - done.length} schedules not done in time`);
  const lateness = done.map((item) => Date.parse(item.doneAt!) - Date.parse(item.at));
  return {
    done: done.length,
    of: created.length,
    latenessMs: lateness,
    maxMs: lateness.length ? Math.max(...lateness) : NaN,
    p50Ms: percentile(lateness, 50),
  };
}

await runBenchmark('drafts', async ({ args, kind }) => {
  const options = readOptions(args);
  const loadAtStart = loads();
  console.log(`load average at start: ${loadAtStart}`);
  const service = await startService(kind);
  try {
    const client = service.client(2);
    const publish = await measurePublish(service, client, options);
    const list = await measureList(service, client, options);
    const schedules = await measureSchedules(client, publish.leftover, options);
    const loadAtEnd = loads();
    const rate: Spread = spread(publish.runs.map((run) => run.recordsPerSecond));
    const serverMs: Spread = spread(publish.runs.map((run) => run.serverMs));
    const publishGoal =
      kind === 'sqlite'
        ? `≥ ${fmtInt(GOAL_PUBLISH_PER_SECOND)}/s ${status(rate.median >= GOAL_PUBLISH_PER_SECOND)}`
        : `(≥ ${fmtInt(GOAL_PUBLISH_PER_SECOND)}/s on SQLite; here ${rate.median >= GOAL_PUBLISH_PER_SECOND ? 'above' : 'below'})`;
    const ratioGoal = (ratio: number) => `≤ ${GOAL_LIST_RATIO}× ${status(ratio <= GOAL_LIST_RATIO)}`;
    const first = list.byOffset.find((cell) => cell.offset === 0)!;
    const offsetPages = list.byOffset.filter((cell) => cell.offset > 0);
    const worst = (key: 'ratioP50' | 'ratioP95') =>
      offsetPages.reduce((found, cell) => (cell[key] > found[key] ? cell : found), offsetPages[0]!);
    const worstP50 = worst('ratioP50');
    const worstP95 = worst('ratioP95');
    printTable(
      `Drafts on ${kind} (load average ${loadAtStart} at start, ${loadAtEnd} at end)`,
      ['figure', 'value', 'goal'],
      [
        [
          `publish of 1000 records, one call: records/s, median (min–max) of ${publish.runs.length}`,
          fmtSpread(rate, fmtInt),
          publishGoal,
        ],
        ['  the same, server time a call', fmtSpread(serverMs, (value) => `${fmtMs(value)} ms`), ''],
        [
          `delivery records(limit 20) at ${fmtInt(options.records)}, drafts vs plain, first page: server p50; p95`,
          `${fmtRatio(first.ratioP50)} (${fmtMs(first.draftsP50)} vs ${fmtMs(first.plainP50)} ms); ${fmtRatio(first.ratioP95)}`,
          ratioGoal(Math.max(first.ratioP50, first.ratioP95)),
        ],
        [
          `  offset pages (${offsetPages.map((cell) => fmtInt(cell.offset)).join(', ')}), the worst: p50; p95`,
          `${fmtRatio(worstP50.ratioP50)} (offset ${fmtInt(worstP50.offset)}); ${fmtRatio(worstP95.ratioP95)} (offset ${fmtInt(worstP95.offset)})`,
          ratioGoal(Math.max(worstP50.ratioP50, worstP95.ratioP95)),
        ],
        [
          `schedule lateness doneAt − at (${schedules.done}/${schedules.of} done): max; p50`,
          `${fmtInt(schedules.maxMs)} ms; ${fmtInt(schedules.p50Ms)} ms`,
          `< ${GOAL_LATENESS_MS} ms ${status(schedules.maxMs < GOAL_LATENESS_MS && schedules.done === schedules.of)}`,
        ],
      ],
    );
    printTable(
      `Delivery records(limit 20) by offset on ${kind}, server ms (${options.rounds} rounds, alternating)`,
      ['offset', 'plain p50', 'drafts p50', 'ratio', 'plain p95', 'drafts p95', 'ratio', 'client p50 plain / drafts'],
      list.byOffset.map((cell) => [
        fmtInt(cell.offset),
        fmtMs(cell.plainP50),
        fmtMs(cell.draftsP50),
        fmtRatio(cell.ratioP50),
        fmtMs(cell.plainP95),
        fmtMs(cell.draftsP95),
        fmtRatio(cell.ratioP95),
        `${fmtMs(cell.plainClientP50)} / ${fmtMs(cell.draftsClientP50)}`,
      ]),
    );
    return {
      options,
      loadAverage: { start: loadAtStart, end: loadAtEnd },
      goals: {
        publishRecordsPerSecond: GOAL_PUBLISH_PER_SECOND,
        listRatio: GOAL_LIST_RATIO,
        latenessMs: GOAL_LATENESS_MS,
      },
      publish: { recordsPerSecond: rate, serverMs, runs: publish.runs },
      list,
      schedules,
    };
  } finally {
    await service.dispose();
  }
});
