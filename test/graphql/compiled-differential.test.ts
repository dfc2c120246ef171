// Differential test of the service's execution (src/graphql/execute.ts runOperation: the compiled plan, or
// graphql-js when an operation has none) against graphql-js `execute` on the same schema and the same data.
// The two answers — data, and errors with their messages, paths and codes, in order — must be the same JSON text.
//
// Three corpora: the admin and delivery schemas on a real SQLite store (reads on one store; each mutation on two
// copies of one store, so both sides write the same records), hand-written documents on a purpose-built schema
// that reaches what the service's schemas do not (errors in lists and non-null positions, a leaf with
// arguments, errors raised some microtasks apart), and documents generated at random on that schema.
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  buildSchema,
  execute,
  GraphQLObjectType,
  GraphQLScalarType,
  getIntrospectionQuery,
  parse,
  responsePathAsArray,
  type ExecutionResult,
  type GraphQLError,
  type GraphQLResolveInfo,
  type GraphQLSchema,
} from 'graphql';
import { ServiceError } from '../../src/domain/errors.js';
import { buildAdminSchema } from '../../src/graphql/admin/schema.js';
import { compiledOperation } from '../../src/graphql/compiled-execute.js';
import type { AdminContext, Services } from '../../src/graphql/context.js';
import { buildDeliverySchema, type DeliveryContext } from '../../src/graphql/delivery/schema.js';
import { runOperation } from '../../src/graphql/execute.js';
import { DocumentCache, prepareOperation } from '../../src/graphql/request.js';
import type { Actor } from '../../src/services/actor.js';
import { MemberService } from '../../src/services/member-service.js';
import { ModelService } from '../../src/services/model-service.js';
import { RecordReader } from '../../src/services/record-reader.js';
import { PublishingService } from '../../src/services/publishing-service.js';
import { ScheduleService } from '../../src/services/schedule-service.js';
import { HistoryService } from '../../src/services/history-service.js';
import { RecordService } from '../../src/services/record-service.js';
import { TokenService } from '../../src/services/token-service.js';
import { WorkspaceService } from '../../src/services/workspace-service.js';
import { WebhookService } from '../../src/services/webhook-service.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { AssetService } from '../../src/services/asset-service.js';
import { AssetUrls } from '../../src/services/asset-urls.js';
import { FileStorage } from '../../src/media/file-storage.js';
import type { Store } from '../../src/store/store.js';
import { ownedWorkspace } from '../support/workspaces.js';

// ---------------------------------------------------------------------------------------------------------------
// The comparison

interface Case {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

function answerText(data: string, errors: readonly GraphQLError[]): string {
  const listed = errors.map((error) => ({
    message: error.message,
    path: error.path,
    code: error.originalError instanceof ServiceError ? error.originalError.code : undefined,
  }));
  return listed.length === 0 ? `{"data":${data}}` : `{"data":${data},"errors":${JSON.stringify(listed)}}`;
}

const caches = new WeakMap<GraphQLSchema, DocumentCache>();

/** The service's answer: the request prepared (parsed, validated, variables coerced) and run as the routes do. */
async function serviceAnswer(schema: GraphQLSchema, context: unknown, { query, variables = {}, operationName }: Case) {
  let cache = caches.get(schema);
  // The service's limits, but room for the generated documents' aliases.
  if (!cache) caches.set(schema, (cache = new DocumentCache(schema, { maxAliases: 1000, maxDepth: 30 })));
  const prepared = prepareOperation(schema, cache, { query, variables, operationName });
  const { data, errors } = await runOperation(schema, prepared, context);
  return answerText(data, errors);
}

/** graphql-js's answer to the same request. */
async function referenceAnswer(schema: GraphQLSchema, context: unknown, { query, variables = {}, operationName }: Case) {
  const result = (await execute({
    schema,
    document: parse(query),
    variableValues: variables,
    operationName,
    contextValue: context,
    rootValue: {},
  })) as ExecutionResult;
  return answerText(JSON.stringify(result.data ?? null), result.errors ?? []);
}

async function assertSame(schema: GraphQLSchema, context: unknown, request: Case): Promise<string> {
  const expected = await referenceAnswer(schema, context, request);
  const actual = await serviceAnswer(schema, context, request);
  assert.equal(actual, expected, `${request.query}\n${JSON.stringify(request.variables ?? {})}`);
  return actual;
}

/** Every request answered as graphql-js does; all the differences are reported, not only the first. */
async function assertAllSame(schema: GraphQLSchema, context: unknown, requests: readonly (Case | string)[]): Promise<void> {
  const failures: string[] = [];
  for (const request of requests) {
    try {
      await assertSame(schema, context, typeof request === 'string' ? { query: request } : request);
    } catch (error) {
      failures.push((error as Error).message);
    }
  }
  assert.deepEqual(failures, [], `${failures.length} of ${requests.length} answers differ`);
}

function isCompiled(schema: GraphQLSchema, query: string): boolean {
  const document = parse(query);
  const operation = document.definitions.find((definition) => definition.kind === 'OperationDefinition');
  return compiledOperation(schema, document, operation as never) !== null;
}

// ---------------------------------------------------------------------------------------------------------------
// The service's schemas on a real SQLite store

let dir: string;
let templatePath: string;
let actor: Actor;
let workspaceId: string;
let productModelId: string;
let articleModelId: string;
let productIds: string[];
const openStores: Store[] = [];

function servicesOf(store: Store): Services {
  const records = new RecordService(store);
  return {
    models: new ModelService(store),
    records,
    reader: new RecordReader(store, records),
    tokens: new TokenService(store),
    workspaces: new WorkspaceService(store, 600),
    webhooks: new WebhookService(store, { allowPrivate: false }),
    history: new HistoryService(store, records),
    publishing: new PublishingService(store, records),
    schedules: new ScheduleService(store),
    members: new MemberService(store),
    assets: new AssetService(store, new FileStorage(join(dir, 'assets')), new AssetUrls(), {
      tempDir: dir,
      maxUploadBytes: 1024 * 1024,
    }),
  };
}

/** A store on a copy of the seeded database. */
function storeCopy(name: string): Store {
  const path = join(dir, `${name}.db`);
  copyFileSync(templatePath, path);
  for (const suffix of ['-wal', '-shm'])
    if (existsSync(templatePath + suffix)) copyFileSync(templatePath + suffix, path + suffix);
  const store = openSqliteStore(path);
  openStores.push(store);
  return store;
}

let readStore: Store;
let readServices: Services;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cs-differential-'));
  templatePath = join(dir, 'template.db');
  const store = openSqliteStore(templatePath);
  const { workspace, actor: owner } = await ownedWorkspace(store, 'acme');
  workspaceId = workspace.id;
  actor = owner;
  const services = servicesOf(store);
  const product = await services.models.create(actor, {
    name: 'Product',
    slug: 'product',
    displayField: 'name',
    description: 'Things to sell',
    fields: [
      { key: 'name', type: 'text', required: true },
      { key: 'price', type: 'number' },
      { key: 'sku', type: 'text' },
    ],
    product: { enabled: true, skuField: 'sku', priceField: 'price' },
    deliveryAccess: 'public',
  });
  productModelId = product.id;
  const article = await services.models.create(actor, {
    name: 'Article',
    slug: 'article',
    fields: [
      { key: 'title', type: 'text', required: true },
      { key: 'product', type: 'relation', relationTo: 'model:product', relationType: 'hasOne' },
    ],
  });
  articleModelId = article.id;
  await services.records.import(
    actor,
    productModelId,
    Array.from({ length: 6 }, (_, n) => ({ name: `Product "${n}" ✓`, price: n * 1.5, sku: `SKU-${n}` })),
  );
  const page = await services.records.list(workspaceId, productModelId, { limit: 100, offset: 0 });
  productIds = page.items.map((item) => item.id);
  await services.records.create(actor, articleModelId, { title: 'First', product: productIds[0] });
  await services.tokens.create(actor, { name: 'ci', expiresAt: null } as never);
  await store.close();
  readStore = storeCopy('reads');
  readServices = servicesOf(readStore);
});

after(async () => {
  for (const store of openStores) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const adminSchema = buildAdminSchema();
const deliverySchema = buildDeliverySchema();

const RECORD_FIELDS = 'id modelId workspaceId data createdAt updatedAt createdBy updatedBy';

function adminReads(): Case[] {
  const m = productModelId;
  return [
    {
      query: `{ model { list { id workspaceId name slug description displayField deliveryAccess recordCount createdAt updatedAt
        fields { key label type required relationTo relationType fields { key } } product { enabled skuField priceField } __typename } } }`,
    },
    {
      query: `query ($id: ID!) { model { get(id: $id) { id slug } missing: get(id: "nope") { id } } }`,
      variables: { id: articleModelId },
    },
    {
      query: `query List($m: ID!, $limit: Int = 2, $offset: Int) {
        record { list(modelId: $m, limit: $limit, offset: $offset) { total hasMore items { ...R } } }
      }
      fragment R on ModelRecord { id data ... on ModelRecord { createdAt updatedAt } ... { modelId workspaceId __typename } }`,
      variables: { m },
    },
    {
      query: `query List($m: ID!, $limit: Int = 2, $offset: Int) { record { list(modelId: $m, limit: $limit, offset: $offset) { total hasMore items { ${RECORD_FIELDS} } } } }`,
      variables: { m, limit: 4, offset: 3 },
      operationName: 'List',
    },
    {
      query: `query ($m: ID!) { record { a: list(modelId: $m, limit: 1, sort: "-createdAt") { items { id } } b: list(modelId: $m, limit: 1, sort: "price") { items { x: id y: data } } } }`,
      variables: { m },
    },
    { query: `{ record { first: get(id: "${productIds[0]}") { ${RECORD_FIELDS} } missing: get(id: "nope") { id } } }` },
    { query: `query ($id: ID = "${productIds[1]}") { record { get(id: $id) { id data } } }` },
    // Bad arguments: errors from the services; non-null fields take the error up.
    { query: `{ record { list(modelId: "nope") { total } } }` },
    { query: `query ($m: ID!) { record { list(modelId: $m, limit: -5) { total } } }`, variables: { m } },
    { query: `query ($m: ID!) { record { list(modelId: $m, sort: "nope") { total } } }`, variables: { m } },
    {
      query: `{ record { a: list(modelId: "nope1") { total } b: list(modelId: "nope2") { total } } workspace { current { id } } }`,
    },
    {
      query: `query ($m: ID!) { record { a: get(id: "nope") { id } b: list(modelId: $m, limit: 0) { total } } }`,
      variables: { m },
    },
    // Directives.
    {
      query: `query ($m: ID!, $withData: Boolean!, $skipTotal: Boolean = false) {
        record { list(modelId: $m, limit: 3) { total @skip(if: $skipTotal) hasMore @include(if: false) items { id data @include(if: $withData) } } }
      }`,
      variables: { m, withData: true },
    },
    {
      query: `query ($m: ID!, $withData: Boolean!, $skipTotal: Boolean = false) {
        record { list(modelId: $m, limit: 3) { total @skip(if: $skipTotal) items { id data @include(if: $withData) } } }
      }`,
      variables: { m, withData: false, skipTotal: true },
    },
    {
      query: `query ($m: ID!, $on: Boolean = true) { record { list(modelId: $m, limit: 1) { ... on ModelRecordList @include(if: $on) { total } ...F @skip(if: $on) } } }
        fragment F on ModelRecordList { hasMore }`,
      variables: { m, on: false },
    },
    // A directive's variable explicitly null: graphql-js refuses the directive where it collects the fields.
    {
      query: `query ($m: ID!, $on: Boolean = true) { record { list(modelId: $m, limit: 1) { total @include(if: $on) } } }`,
      variables: { m, on: null },
    },
    { query: `query ($on: Boolean = true) { workspace { current { id @include(if: $on) } } }`, variables: { on: null } },
    {
      query: `{ __typename workspace { __typename current { id orgSlug slug role deliveryPath writeBudget writeBudgetIsDefault defaultLocale } } }`,
    },
    // Reading arguments: locale, populate, reads by ids; status.
    {
      query: `query ($a: ID!, $locale: String, $populate: [String!]) {
        record { list(modelId: $a, locale: $locale, populate: $populate) { total items { id data status } } } }`,
      variables: { a: articleModelId, locale: 'de-AT', populate: ['product'] },
    },
    {
      query: `query ($ids: [ID!]!) { record { getMany(ids: $ids, populate: ["product"], locale: "en") { id modelId data status createdBy } } }`,
      variables: { ids: [productIds[0], 'nope', productIds[1]] },
    },
    { query: `{ record { getMany(ids: []) { id } } }` },
    {
      query: `query ($id: ID!) { record { get(id: $id, populate: ["name"]) { id } ok: get(id: $id, locale: "pl") { id data status } } }`,
      variables: { id: productIds[0] },
    },
    {
      query: `query ($a: ID!) { record { list(modelId: $a, populate: ["product.x.y.z"]) { total } } model { get(id: $a) { icon color } } }`,
      variables: { a: articleModelId },
    },
    { query: `{ token { list { name userEmail role expiresAt revokedAt __typename } } }` },
    // Introspection.
    {
      query: `{ __type(name: "ModelRecord") { name kind fields { name args { name } type { kind name ofType { kind name ofType { name } } } } } }`,
    },
    // What GraphiQL sends.
    {
      query: getIntrospectionQuery({
        descriptions: true,
        specifiedByUrl: true,
        directiveIsRepeatable: true,
        schemaDescription: true,
        inputValueDeprecation: true,
      }),
    },
    {
      query: `{ __schema { queryType { name } mutationType { name } types { name kind fields(includeDeprecated: true) { name isDeprecated } inputFields { name defaultValue } } directives { name locations args { name } } } }`,
    },
  ];
}

test('differential, admin schema on SQLite: queries answer as graphql-js does', async () => {
  const context: AdminContext = { actor, services: readServices, origin: 'http://127.0.0.1' };
  await assertAllSame(adminSchema, context, adminReads());
  // Directives and introspection included: nothing here runs on graphql-js (whose execute coerces the variables again).
  for (const request of adminReads()) assert.ok(isCompiled(adminSchema, request.query), request.query);
});

test('differential, delivery schema on SQLite: queries answer as graphql-js does', async () => {
  const workspace = (await readStore.tenancy.findWorkspace(workspaceId))!;
  const context: DeliveryContext = { workspace, services: readServices, callerIsMember: false };
  const requests: Case[] = [
    {
      query: `{ public { model { definitions { slug name description displayField fields { key label type required relationTo relationType } }
        records(modelSlug: "product", limit: 2, offset: 1) { total hasMore items { ${RECORD_FIELDS} } } } } }`,
    },
    {
      query: `query ($slug: String!) { public { model { records(modelSlug: $slug) { total } } } }`,
      variables: { slug: 'article' },
    },
    {
      query: `{ public { model { a: records(modelSlug: "none") { total } definitions { slug } b: records(modelSlug: "article") { total } } } }`,
    },
    {
      query: `query ($sort: String) { public { model { records(modelSlug: "product", sort: $sort) { items { id } } } } }`,
      variables: { sort: 'bad sort' },
    },
    {
      query: `query ($n: Int = 1) { __typename public { __typename model { records(modelSlug: "product", limit: $n) { items { data } } } } }`,
    },
    {
      query: `query PublicModelDefinitions($workspaceId: String!) {
        public { model { definitions(workspaceId: $workspaceId) { id name slug description icon color displayField recordCount } } } }`,
      variables: { workspaceId },
    },
    {
      query: `query PublicModelRecords($workspaceId: String!, $modelSlug: String!, $filter: JSON, $sort: String,
                         $locale: String, $limit: Int, $offset: Int, $populate: [String!]) {
        public { model { records(workspaceId: $workspaceId, modelSlug: $modelSlug, filter: $filter, sort: $sort,
                           locale: $locale, limit: $limit, offset: $offset, populate: $populate) {
          items { id modelId data status createdAt updatedAt } total hasMore } } } }`,
      variables: { workspaceId, modelSlug: 'product', sort: 'createdAt_desc', locale: 'de', limit: 3, offset: 1 },
    },
    {
      query: `query ($ids: [ID!]!) { public { model {
        recordsByIds(modelSlug: "product", ids: $ids, locale: "en") { id data status }
        one: record(modelSlug: "product", id: "${productIds[2]}") { id data createdBy }
        none: record(modelSlug: "product", id: "nope") { id } } } }`,
      variables: { ids: [productIds[3], 'nope', productIds[0]] },
    },
    {
      query: `{ public { model { a: definitions(workspaceId: "elsewhere") { slug } } } }`,
    },
    {
      query: `{ public { model { a: record(workspaceId: "elsewhere", modelSlug: "product", id: "x") { id } b: recordsByIds(modelSlug: "product", ids: ["x"], populate: ["name"]) { id } } } }`,
    },
  ];
  await assertAllSame(deliverySchema, context, requests);
  for (const request of requests) assert.ok(isCompiled(deliverySchema, request.query), request.query);
});

test('differential, admin schema on SQLite: mutations on two copies of one store answer alike', async () => {
  const m = productModelId;
  const requests: Case[] = [
    {
      query: `mutation ($m: ID!) { record {
        a: create(input: { modelId: $m, data: { name: "A", price: 1 } }) { ${RECORD_FIELDS} }
        b: create(input: { modelId: $m, data: { name: "B", sku: "SKU-B" } }) { id data }
      } }`,
      variables: { m },
    },
    // An error in a non-null field in the middle: the null goes up to the root.
    {
      query: `mutation ($m: ID!) { record {
        a: create(input: { modelId: $m, data: { name: "A" } }) { id }
        b: create(input: { modelId: $m, data: { price: "x" } }) { id }
        c: create(input: { modelId: $m, data: { name: "C", sku: "SKU-1" } }) { id }
      } }`,
      variables: { m },
    },
    { query: `mutation { record { patch(input: { id: "nope", data: {} }) { id } } }` },
    {
      query: `mutation ($id: ID!, $data: JSON!) { record { patch(input: { id: $id, data: $data }) { id data updatedAt } } }`,
      variables: { id: productIds[2], data: { price: 99, sku: null } },
    },
    {
      query: `mutation ($m: ID!, $rows: [JSON!]!) { record { import(input: { modelId: $m, rows: $rows }) { importedCount errors { row message } } } }`,
      variables: { m, rows: [{ name: 'I1' }, { price: 'bad' }, { name: 'I3', sku: 'SKU-0' }, { name: 'I4', sku: 'SKU-I4' }] },
    },
    {
      query: `mutation ($input: CreateModelDefinitionInput!) { model { create(input: $input) { id slug displayField fields { key label type required } deliveryAccess } } }`,
      variables: { input: { name: 'Tag', slug: 'tag', fields: [{ key: 'label', type: 'text', required: true }] } },
    },
    { query: `mutation { model { create(input: { name: "Bad", slug: "Bad slug!", fields: [] }) { id } } }` },
    // Root fields run one after another; the second sees the first's record.
    {
      query: `mutation ($m: ID!) {
        model { update(input: { id: $m, description: "changed" }) { description } }
        record { create(input: { modelId: $m, data: { name: "after" } }) { data } }
        token { create(input: { name: "t" }) { apiToken { name role } } }
      }`,
      variables: { m },
    },
    {
      query: `mutation ($id: ID!) { record { delete(id: $id) { id deleted } again: delete(id: "nope") { id } } }`,
      variables: { id: productIds[5] },
    },
    {
      query: `mutation { workspace { update(input: { defaultLocale: "pl" }) { id defaultLocale } bad: update(input: { defaultLocale: "Polish" }) { id } } }`,
    },
    {
      query: `mutation ($m: ID!) { model { update(input: { id: $m, icon: "🛒", color: "#fff" }) { icon color } bad: update(input: { id: $m, color: "white" }) { id } } }`,
      variables: { m },
    },
  ];
  let index = 0;
  for (const request of requests) {
    index++;
    assert.ok(isCompiled(adminSchema, request.query), `the compiled path runs ${request.query}`);
    const serviceStore = storeCopy(`mutation-${index}-service`);
    const referenceStore = storeCopy(`mutation-${index}-reference`);
    const actual = await serviceAnswer(adminSchema, { actor, services: servicesOf(serviceStore) }, request);
    const expected = await referenceAnswer(adminSchema, { actor, services: servicesOf(referenceStore) }, request);
    assert.equal(withNewValuesNumbered(actual), withNewValuesNumbered(expected), request.query);
  }
});

/** New ids and times differ between the two stores: each distinct one is numbered in order of appearance. */
function withNewValuesNumbered(json: string): string {
  const known = new Set([workspaceId, actor.userId, productModelId, articleModelId, ...productIds]);
  const numbers = new Map<string, number>();
  return json.replace(
    /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g,
    (value) => {
      if (known.has(value)) return value;
      if (!numbers.has(value)) numbers.set(value, numbers.size);
      return `<new ${numbers.get(value)}>`;
    },
  );
}

test('differential: the operations the service answers all day take the compiled path', () => {
  const m = productModelId;
  for (const query of [
    `mutation { record { create(input: { modelId: "${m}", data: {} }) { ${RECORD_FIELDS} } } }`,
    `mutation ($id: ID!, $data: JSON!) { record { patch(input: { id: $id, data: $data }) { id data } } }`,
    `mutation ($rows: [JSON!]!) { record { import(input: { modelId: "${m}", rows: $rows }) { importedCount errors { row message } } } }`,
    `query ($m: ID!) { record { list(modelId: $m, limit: 100) { total hasMore items { ${RECORD_FIELDS} } } } }`,
    `{ record { get(id: "x") { id data } } }`,
    `query ($ids: [ID!]!) { record { getMany(ids: $ids, locale: "de", populate: ["product"]) { id data status } } }`,
    '{ model { list { id name slug fields { key type required } recordCount } } }',
  ]) {
    assert.ok(isCompiled(adminSchema, query), query);
  }
});

// ---------------------------------------------------------------------------------------------------------------
// A purpose-built schema: errors and nulls everywhere, some microtasks apart

const PURPOSE_SDL = /* GraphQL */ `
  scalar Odd
  scalar Counted

  type Query {
    node(id: Int = 1): Node
    strictNode(id: Int = 1): Node!
    value(ticks: Int = 0, fail: Boolean = false): String
    strictValue(ticks: Int = 0, fail: Boolean = false): String!
    nodes(count: Int = 3, failAt: Int = -1, nullAt: Int = -1, ticks: Int = 0): [Node]
    strictNodes(count: Int = 3, failAt: Int = -1, nullAt: Int = -1, ticks: Int = 0): [Node!]
    matrix: [[Int!]]
    odd: Odd
    echo(value: Counted): String
  }

  type Node {
    id: Int!
    "Read from the source by the default resolver; its arguments are still coerced (and may be refused)."
    label(upper: Boolean!, suffix: String = ""): String
    "A method of the source, called by the default resolver with the arguments."
    shout(times: Int!): String
    "An Error value in the source for odd ids."
    maybeError: String
    value(ticks: Int = 0, fail: Boolean = false): String
    strictValue(ticks: Int = 0, fail: Boolean = false): String!
    child(ticks: Int = 0, fail: Boolean = false): Node
    strictChild(ticks: Int = 0, fail: Boolean = false): Node!
    nodes(count: Int = 3, failAt: Int = -1, nullAt: Int = -1, ticks: Int = 0): [Node]
    strictNodes(count: Int = 3, failAt: Int = -1, nullAt: Int = -1, ticks: Int = 0): [Node!]
  }
`;

/** `produce()` now (ticks 0), or after `ticks` microtasks. */
function later<T>(ticks: number, produce: () => T): T | Promise<T> {
  if (ticks <= 0) return produce();
  let promise: Promise<void> = Promise.resolve();
  for (let tick = 1; tick < ticks; tick++) promise = promise.then();
  return promise.then(produce);
}

const where = (info: GraphQLResolveInfo) => responsePathAsArray(info.path).join('.');

interface PurposeNode {
  id: number;
  label: string;
  shout: (args: { times: number }) => string;
  maybeError: string | Error;
}

function makeNode(id: number): PurposeNode {
  return {
    id,
    label: `node ${id}`,
    shout: ({ times }) => `${'!'.repeat(times)} ${id}`,
    maybeError: id % 2 === 1 ? new Error(`error value of node ${id}`) : 'no error',
  };
}

let countedParses = 0;

function makePurposeSchema(): GraphQLSchema {
  const schema = buildSchema(PURPOSE_SDL);
  const idOf = (source: unknown) => (source as PurposeNode | undefined)?.id ?? 0;
  type Flags = { ticks: number; fail: boolean };
  type ListArgs = { count: number; failAt: number; nullAt: number; ticks: number };
  const value = (_source: unknown, { ticks, fail }: Flags, _context: unknown, info: GraphQLResolveInfo) =>
    later(ticks, () => {
      if (fail) throw new Error(`failed at ${where(info)}`);
      return `value at ${where(info)}`;
    });
  const child = (source: unknown, { ticks, fail }: Flags, _context: unknown, info: GraphQLResolveInfo) =>
    later(ticks, () => {
      if (fail) throw new Error(`no child at ${where(info)}`);
      return makeNode(idOf(source) * 2 + 1);
    });
  const nodes = (source: unknown, { count, failAt, nullAt, ticks }: ListArgs, _context: unknown, info: GraphQLResolveInfo) =>
    Array.from({ length: count }, (_, index) => {
      if (index === nullAt) return null;
      const id = idOf(source) * 10 + index;
      if (index === failAt) {
        const error = new Error(`item ${index} failed at ${where(info)}`);
        if (ticks === 0) return error;
        // graphql-js gives up a list at its first error in a non-null item: later items may never be awaited.
        const failing = later(ticks, () => Promise.reject(error));
        failing.catch(() => {});
        return failing;
      }
      return ticks > 0 ? later(ticks + (index % 3), () => makeNode(id)) : makeNode(id);
    });
  const resolvers = { value, strictValue: value, child, strictChild: child, nodes, strictNodes: nodes };
  for (const typeName of ['Query', 'Node']) {
    const fields = (schema.getType(typeName) as GraphQLObjectType).getFields();
    for (const [name, resolve] of Object.entries(resolvers)) {
      const field = fields[name];
      if (field) field.resolve = resolve as never;
    }
  }
  const query = (schema.getType('Query') as GraphQLObjectType).getFields();
  query.node!.resolve = (_source, { id }: { id: number }) => (id < 0 ? null : makeNode(id));
  query.strictNode!.resolve = (_source, { id }: { id: number }) => (id < 0 ? null : makeNode(id));
  query.matrix!.resolve = () => [[1, 2], null, [3, Promise.resolve(4)], Promise.resolve([5, null])];
  query.odd!.resolve = () => ({ odd: true });
  query.echo!.resolve = (_source, args: { value?: unknown }) => JSON.stringify(args.value ?? null);
  Object.assign(schema.getType('Odd') as GraphQLScalarType, { serialize: () => null });
  Object.assign(schema.getType('Counted') as GraphQLScalarType, {
    parseValue: (input: unknown) => {
      countedParses++;
      return { counted: input };
    },
  });
  return schema;
}

const purposeSchema = makePurposeSchema();

test('differential, purpose-built schema: arguments of leaf fields and of @skip/@include are coerced, and refused', async () => {
  await assertAllSame(purposeSchema, undefined, [
    {
      query: 'query ($u: Boolean = true) { node { id label(upper: $u) other: label(upper: false, suffix: "s") } }',
      variables: { u: null },
    },
    { query: 'query ($n: Int = 2) { node { shout(times: $n) } }', variables: { n: null } },
    '{ node { shout(times: 3) maybeError } n3: node(id: 3) { maybeError } }',
    // A condition refused where the root's fields are collected, and where a list's items' fields are.
    { query: 'query ($on: Boolean = true) { value @include(if: $on) node { id } }', variables: { on: null } },
    { query: 'query ($on: Boolean = true) { nodes { id ... @skip(if: $on) { label(upper: true) } } }', variables: { on: null } },
    { query: 'query ($on: Boolean = true) { nodes { id ... @skip(if: $on) { label(upper: true) } } }', variables: {} },
  ]);
});

test('differential, purpose-built schema: null bubbling and errors in lists and non-null positions', async () => {
  await assertAllSame(purposeSchema, undefined, [
    '{ value(fail: true) strictValue node { id } }',
    '{ value strictValue(fail: true) node { id } }',
    '{ node { strictValue(fail: true) value(ticks: 2, fail: true) } value(ticks: 1, fail: true) }',
    '{ nodes(failAt: 1) { id } strictNodes(failAt: 2) { id } }',
    '{ nodes(failAt: 1, nullAt: 2, ticks: 2) { id value(ticks: 1, fail: true) } strictNodes(nullAt: 0, ticks: 1) { id } }',
    '{ node { strictChild(ticks: 1) { strictChild(ticks: 2, fail: true) { id } value(ticks: 5, fail: true) } value(ticks: 4, fail: true) } }',
    '{ strictNode(id: -1) { id } value(ticks: 3, fail: true) }',
    '{ node { nodes(ticks: 1) { strictNodes(failAt: 0, ticks: 2) { id } value(ticks: 1, fail: true) } } }',
    '{ matrix odd }',
    '{ node(id: 2) { a: value(ticks: 3, fail: true) b: strictValue(ticks: 1, fail: true) c: value(ticks: 6, fail: true) d: strictValue(fail: true) } }',
    '{ node { a: strictChild(ticks: 1, fail: true) { id } b: child(ticks: 9, fail: true) { id } c: strictValue(fail: true) } }',
    // An error inside a part already nulled is dropped.
    '{ node { a: strictValue(ticks: 1, fail: true) b: value(ticks: 8, fail: true) } value(ticks: 12) }',
    // A field failing at once after others started: graphql-js waits for them with Promise.all (not for all of them).
    '{ node { x: strictValue(ticks: 1, fail: true) z: value(ticks: 8, fail: true) y: strictValue(fail: true) } }',
    // Two of the generated documents below.
    `{ a0: node(id: 4) { a1: value(ticks: 0, fail: true) a2: strictValue(ticks: 0, fail: false) } a3: strictValue(ticks: 6, fail: true)
       a4: strictNode { a5: nodes(count: 3, failAt: -1, nullAt: -1, ticks: 8) {
         a6: strictNodes(count: 3, failAt: 1, nullAt: 0, ticks: 6) { a7: nodes(count: 1, failAt: 2, nullAt: 1, ticks: 0) { __typename } }
         ... on Node { a8: strictChild(ticks: 6, fail: false) { a9: label(upper: false) a10: shout(times: 0) a11: label(upper: false) ...F0 } } } } }
     fragment F0 on Node { a12: strictValue(ticks: 4, fail: true) }`,
    `{ a0: node(id: 4) { a1: strictValue(ticks: 8, fail: false)
         a2: strictChild(ticks: 4, fail: true) { a3: strictNodes(count: 3, failAt: 2, nullAt: -1, ticks: 9) { a4: maybeError } }
         a5: shout(times: 0) a6: strictValue(ticks: 6, fail: true)
         ... on Node { a7: strictChild(ticks: 10, fail: false) { a8: maybeError a9: strictChild(ticks: 3, fail: true) { __typename } ...F0 } } }
       a10: strictValue(ticks: 7, fail: false) matrix }
     fragment F0 on Node { __typename }`,
  ]);
});

test('differential, purpose-built schema: variables are coerced once, directives and all', async () => {
  for (const query of [
    'query ($v: Counted) { echo(value: $v) }',
    'query ($v: Counted, $show: Boolean!) { echo(value: $v) @include(if: $show) }',
    'query ($v: Counted) { ... @skip(if: false) { echo(value: $v) } }',
  ]) {
    countedParses = 0;
    await serviceAnswer(purposeSchema, undefined, { query, variables: { v: 'x', show: true } });
    assert.equal(countedParses, 1, query);
  }
});

// Documents generated at random (a fixed seed): nested selections of every field above, aliases, fragments,
// directives, errors and nulls raised zero to a dozen microtasks apart.
function generator(seed: number) {
  let state = seed;
  const random = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const chance = (p: number) => random() < p;
  const ticks = () => (chance(0.3) ? 0 : Math.floor(random() * 12));
  let aliasCount = 0;
  const alias = () => `a${aliasCount++}: `;
  const fragments: string[] = [];
  let fragmentCount = 0;

  const valueField = () => `${alias()}${pick(['value', 'strictValue'])}(ticks: ${ticks()}, fail: ${chance(0.35)})`;
  // A non-null list fails at once at an item that fails at once; graphql-js then leaves the items before it
  // running, and their errors unhandled (Node's unhandled rejections, which would fail this file): there, only
  // the first item fails at once.
  const list = (name: string) => {
    const strict = name === 'strictNodes';
    const at = () => Math.floor(random() * 3);
    const listTicks = ticks();
    const failAt = chance(0.4) ? (strict && listTicks === 0 ? 0 : at()) : -1;
    const nullAt = chance(0.3) ? (strict ? 0 : at()) : -1;
    return `${alias()}${name}(count: ${Math.floor(random() * 4)}, failAt: ${failAt}, nullAt: ${nullAt}, ticks: ${listTicks})`;
  };

  function nodeSelection(depth: number): string {
    const parts: string[] = [];
    const count = 1 + Math.floor(random() * 4);
    for (let index = 0; index < count; index++) parts.push(nodeField(depth));
    if (chance(0.2)) parts.push(`... on Node { ${nodeField(depth)} }`);
    if (chance(0.15)) parts.push(`... @include(if: ${chance(0.5)}) { ${nodeField(depth)} }`);
    if (chance(0.15)) {
      const name = `F${fragmentCount++}`;
      fragments.push(`fragment ${name} on Node { ${nodeField(depth)} }`);
      parts.push(`...${name}`);
    }
    return `{ ${parts.join(' ')} }`;
  }

  function nodeField(depth: number): string {
    const leaves = [
      () => 'id',
      () => '__typename',
      () => `${alias()}label(upper: ${chance(0.5)})`,
      () => `${alias()}shout(times: ${Math.floor(random() * 3)})`,
      () => `${alias()}maybeError`,
      valueField,
      () => `${alias()}id @skip(if: ${chance(0.5)})`,
    ];
    if (depth <= 0 || chance(0.45)) return pick(leaves)();
    return pick([
      () => `${alias()}${pick(['child', 'strictChild'])}(ticks: ${ticks()}, fail: ${chance(0.25)}) ${nodeSelection(depth - 1)}`,
      () => `${list(pick(['nodes', 'strictNodes']))} ${nodeSelection(depth - 1)}`,
    ])();
  }

  return function document(): string {
    aliasCount = 0;
    fragments.length = 0;
    fragmentCount = 0;
    const roots: string[] = [];
    const count = 1 + Math.floor(random() * 4);
    for (let index = 0; index < count; index++) {
      roots.push(
        pick([
          () => `${alias()}node(id: ${Math.floor(random() * 5)}) ${nodeSelection(3)}`,
          () => `${alias()}strictNode ${nodeSelection(3)}`,
          () => `${list(pick(['nodes', 'strictNodes']))} ${nodeSelection(2)}`,
          valueField,
          () => 'matrix',
        ])(),
      );
    }
    return `{ ${roots.join(' ')} } ${fragments.join(' ')}`;
  };
}

/** `npm test` runs the first 300 (scripts/run-tests.mjs); `npm run test:system` all 1000. */
const DOCUMENTS = Number(process.env.DIFFERENTIAL_DOCUMENTS ?? 1000);

test(`differential, purpose-built schema: ${DOCUMENTS} random documents answer as graphql-js does`, async () => {
  // With this seed the executor as it was (Promise.allSettled, every error kept) answered two of the first 1000
  // otherwise (both kept among the hand-written documents above); ten seeds of 1000 documents each pass.
  const next = generator(4);
  let withErrors = 0;
  for (let index = 0; index < DOCUMENTS; index++) {
    const answer = await assertSame(purposeSchema, undefined, { query: next() });
    if (answer.includes('"errors"')) withErrors++;
  }
  assert.ok(withErrors > DOCUMENTS / 2, `most documents raise errors (${withErrors} of ${DOCUMENTS})`);
});
