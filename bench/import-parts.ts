/**
 * Profiling aid: where the time of one `record.import` call of 1000 rows goes inside the server, on SQLite, and the
 * two baselines of bench/import.ts beside it. In one process, call after call on the import benchmark's rows:
 *
 * - the route's parts, timed one by one (authentication, the body's JSON.parse, the GraphQL request with its
 *   variables, the plan and the write budget, the execution: resolver, RecordService.import, the answer's JSON);
 * - RecordService.import called directly (no HTTP, no GraphQL), into a second model;
 * - its steps one by one into a third model: the model lookup, validation, serialising and measuring, ids and
 *   records, the database write;
 * - the raw driver (bench/lib/raw.ts) inserting 1000 rows into the smallest schema the job needs, and into the
 *   service's schema, each on a database file of its own.
 *
 * What the HTTP exchange adds is bench/import.ts's time per call minus the route's parts. Printed: the median and
 * the 10th percentile of each; on a busy machine the low percentile is the part's own time, the median has other
 * programs' turns on the processor in it.
 *
 * The service's modules are imported from dist/ (build first), as the server runs them: tsx compiles src/ with
 * esbuild's keepNames, which wraps every closure it makes in a call that defines its name, and that alone doubled
 * the validation's time.
 *
 *   node --import tsx bench/import-parts.ts [--calls 200] [--warmup 20]
 */
import { performance } from 'node:perf_hooks';
import { authenticate } from '../dist/auth/authenticate.js';
import { WriteBudget } from '../dist/budget/write-budget.js';
import { skuFieldOf } from '../dist/domain/fields.js';
import { checkRecordData } from '../dist/domain/record-data.js';
import { DEFAULT_RECORD_SIZE_LIMITS, sizeIssues } from '../dist/domain/size-limits.js';
import { planAdminOperation } from '../dist/graphql/admin/plan.js';
import { buildAdminSchema } from '../dist/graphql/admin/schema.js';
import type { AdminContext } from '../dist/graphql/context.js';
import { executeOperation } from '../dist/graphql/execute.js';
import { DocumentCache, prepareOperation, readGraphQLRequest } from '../dist/graphql/request.js';
import { newId } from '../dist/ids.js';
import { MemberService } from '../dist/services/member-service.js';
import { ModelService } from '../dist/services/model-service.js';
import { RecordReader } from '../dist/services/record-reader.js';
import { HistoryService } from '../dist/services/history-service.js';
import { PublishingService } from '../dist/services/publishing-service.js';
import { ScheduleService } from '../dist/services/schedule-service.js';
import { RecordService } from '../dist/services/record-service.js';
import { TokenService } from '../dist/services/token-service.js';
import { WorkspaceService } from '../dist/services/workspace-service.js';
import { WebhookService } from '../dist/services/webhook-service.js';
import { openSqliteStore } from '../dist/store/sqlite/index.js';
import { Args } from './lib/args.js';
import { importBodies, productModelInput, productRows, skuPrefix } from './lib/catalog.js';
import { cleanupAll } from './lib/cleanup.js';
import { createDatabase } from './lib/database.js';
import { openRawSqlite, openSmallestSqlite, rawRows } from './lib/raw.js';
import { bootstrap } from './lib/server.js';
import { openMedia, temporaryMediaConfig } from '../dist/server/media-setup.js';
import { percentile, spread } from './lib/stats.js';
import { fmtMs, fmtSpread, printTable } from './lib/table.js';

const args = new Args();
const calls = args.int('calls', 200);
const warmup = args.int('warmup', 20);

const database = await createDatabase('sqlite');
const smallestDatabase = await createDatabase('sqlite');
const rawDatabase = await createDatabase('sqlite');
try {
  // The two baselines of bench/import.ts, on files of their own, run on the same rows call by call.
  const smallest = openSmallestSqlite(smallestDatabase);
  const raw = openRawSqlite(rawDatabase);
  const workspace = await bootstrap(database.url);
  const store = openSqliteStore(database.location);
  const records = new RecordService(store);
  const services = {
    reader: new RecordReader(store, records),
    models: new ModelService(store),
    records,
    tokens: new TokenService(store),
    workspaces: new WorkspaceService(store, 5000),
    webhooks: new WebhookService(store, { allowPrivate: false }),
    members: new MemberService(store),
    history: new HistoryService(store, records),
    publishing: new PublishingService(store, records),
    schedules: new ScheduleService(store),
    assets: (await openMedia(store, await temporaryMediaConfig())).assets,
  };
  const schema = buildAdminSchema();
  const documents = new DocumentCache(schema);
  const budget = new WriteBudget(1_000_000_000);
  const authorization = `Bearer ${workspace.token}`;
  const { actor } = await authenticate(store, authorization, workspace.workspaceId);
  const viaService = await services.models.create(actor, productModelInput('product') as never);
  const stepByStep = await services.models.create(actor, productModelInput('product-steps') as never);
  const direct = await services.models.create(actor, productModelInput('product-direct') as never);
  const total = warmup + calls;
  const prefix = skuPrefix();
  const bodies = importBodies(viaService.id, prefix, total * 1000);
  const stepBodies = importBodies(stepByStep.id, `${prefix}-s`, total * 1000);
  const directBodies = importBodies(direct.id, `${prefix}-d`, total * 1000);

  const times = new Map<string, number[]>();
  const record = (part: string, ms: number, counted: boolean) => {
    if (!counted) return;
    if (!times.has(part)) times.set(part, []);
    times.get(part)!.push(ms);
  };
  let clock = 0;
  const lap = (part: string, counted: boolean) => {
    const now = performance.now();
    record(part, now - clock, counted);
    clock = now;
  };

  for (let call = 0; call < total; call++) {
    const counted = call >= warmup;
    // The service's path, part by part as the route runs it.
    clock = performance.now();
    const started = clock;
    const authenticated = await authenticate(store, authorization, workspace.workspaceId);
    lap('authentication (token lookup)', counted);
    const body: unknown = JSON.parse(bodies[call]!);
    lap('JSON.parse of the body', counted);
    const prepared = prepareOperation(schema, documents, readGraphQLRequest(body));
    lap('GraphQL request: document, variables', counted);
    const plan = planAdminOperation(schema, prepared);
    await budget.charge(authenticated.actor.workspaceId, plan.cost, null);
    lap('plan and write budget', counted);
    const context: AdminContext = { actor: authenticated.actor, services, origin: 'http://127.0.0.1' };
    const answer = await executeOperation(schema, prepared, context, (error) => {
      throw error;
    });
    lap('execution (resolver, import, answer)', counted);
    record('all of the above', performance.now() - started, counted);
    if (!('json' in answer) || !answer.json.includes('"importedCount":1000')) throw new Error(JSON.stringify(answer));

    // RecordService.import called directly (no GraphQL), on a third model.
    const directRows = (JSON.parse(directBodies[call]!) as { variables: { input: { rows: unknown[] } } }).variables.input.rows;
    clock = performance.now();
    const imported = await records.import(actor, direct.id, directRows);
    lap('RecordService.import, called directly', counted);
    if (imported.importedCount !== 1000) throw new Error(JSON.stringify(imported.errors.slice(0, 3)));

    // RecordService.import's steps, one by one, on the other model.
    const rows = (JSON.parse(stepBodies[call]!) as { variables: { input: { rows: unknown[] } } }).variables.input.rows;
    clock = performance.now();
    const model = (await store.models.get(actor.workspaceId, stepByStep.id))!;
    lap('import: the model', counted);
    const checks = rows.map((row) => checkRecordData(model.fields, row));
    lap('import: validation (checkRecordData)', counted);
    const skuField = skuFieldOf(model)!;
    const texts = checks.map((check) => {
      const text = JSON.stringify(check.data);
      if (sizeIssues(check.data, text, DEFAULT_RECORD_SIZE_LIMITS).length > 0) throw new Error('too large');
      return text;
    });
    lap('import: JSON.stringify and size check', counted);
    const newRecords = checks.map((check, index) => ({
      id: newId(),
      data: check.data,
      dataText: texts[index]!,
      sku: check.data[skuField] as string,
      links: [],
    }));
    lap('import: ids and records', counted);
    const { skippedForSku } = await store.records.insertMany({ model, userId: actor.userId }, newRecords);
    lap('import: database write (insertMany)', counted);
    if (skippedForSku.length > 0) throw new Error('SKU conflict');

    // The raw driver on the same rows: ids and JSON texts made before the clock starts, as in bench/import.ts.
    const baselineRows = rawRows(productRows(`${prefix}-r`, call * 1000, 1000));
    record('raw driver, smallest schema', (await smallest.insert(`product-${call}`, baselineRows, 1000)).ms, counted);
    record('raw driver, service schema', (await raw.insert(`product-${call}`, baselineRows, 1000)).ms, counted);
  }
  await smallest.close();
  await raw.close();
  printTable(
    `Parts of a 1000-row record.import in one process (SQLite): ms per call, of ${calls} calls`,
    ['part', 'median (min–max)', '10th percentile'],
    [...times].map(([part, values]) => [part, fmtSpread(spread(values), fmtMs), fmtMs(percentile(values, 10))]),
  );
  await store.close();
} finally {
  await database.dispose();
  await smallestDatabase.dispose();
  await rawDatabase.dispose();
  await cleanupAll();
}
