/**
 * Profiling aid: where the time of one `record.import` call of 1000 rows goes inside the server, part by part, on
 * SQLite. In one process, on a fresh database, the parts of the service's own code run one after another on the
 * import benchmark's request bodies (bench/lib/catalog.ts), each timed: authentication, the body's JSON.parse, the
 * GraphQL request (document from the cache, variables coerced), the plan and the write budget, and the whole
 * execution (resolver, RecordService.import, the answer's JSON). Every other call instead runs the steps of
 * RecordService.import one by one into a second model, timed apart: the model lookup, validation, serialising and
 * measuring, ids, the database write. What the HTTP exchange adds is the import benchmark's time per call minus
 * these. Median milliseconds per call are printed.
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
import { ModelService } from '../dist/services/model-service.js';
import { RecordService } from '../dist/services/record-service.js';
import { TokenService } from '../dist/services/token-service.js';
import { WorkspaceService } from '../dist/services/workspace-service.js';
import { openSqliteStore } from '../dist/store/sqlite/index.js';
import { Args } from './lib/args.js';
import { importBodies, productModelInput, skuPrefix } from './lib/catalog.js';
import { cleanupAll } from './lib/cleanup.js';
import { createDatabase } from './lib/database.js';
import { bootstrap } from './lib/server.js';
import { spread } from './lib/stats.js';
import { fmtMs, fmtSpread, printTable } from './lib/table.js';

const args = new Args();
const calls = args.int('calls', 200);
const warmup = args.int('warmup', 20);

const database = await createDatabase('sqlite');
try {
  const workspace = await bootstrap(database.url);
  const store = openSqliteStore(database.location);
  const records = new RecordService(store);
  const services = {
    models: new ModelService(store),
    records,
    tokens: new TokenService(store),
    workspaces: new WorkspaceService(store, 5000),
  };
  const schema = buildAdminSchema();
  const documents = new DocumentCache(schema);
  const budget = new WriteBudget(1_000_000_000);
  const authorization = `Bearer ${workspace.token}`;
  const { actor } = await authenticate(store, authorization, workspace.workspaceId);
  const viaService = await services.models.create(actor, productModelInput('product') as never);
  const stepByStep = await services.models.create(actor, productModelInput('product-steps') as never);
  const total = warmup + calls;
  const prefix = skuPrefix();
  const bodies = importBodies(viaService.id, prefix, total * 1000);
  const stepBodies = importBodies(stepByStep.id, `${prefix}-s`, total * 1000);

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
    const context: AdminContext = { actor: authenticated.actor, services };
    const answer = await executeOperation(schema, prepared, context, (error) => {
      throw error;
    });
    lap('execution (resolver, import, answer)', counted);
    record('all of the above', performance.now() - started, counted);
    if (!('json' in answer) || !answer.json.includes('"importedCount":1000')) throw new Error(JSON.stringify(answer));

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
  }
  printTable(
    `Parts of a 1000-row record.import in one process (SQLite): ms per call, median (min–max) of ${calls}`,
    ['part', 'ms per call'],
    [...times].map(([part, values]) => [part, fmtSpread(spread(values), fmtMs)]),
  );
  await store.close();
} finally {
  await database.dispose();
  await cleanupAll();
}
