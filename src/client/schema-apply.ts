// The admin API calls of `content-service schema`: the workspace's models to the deepest sub-field, the dry runs that
// check every step of a plan before any is made, and the steps themselves.
import type { ContentClient } from './client.js';
import { ContentServiceError } from './errors.js';
import { toSchemaModel, type SchemaField, type SchemaModel } from './schema-document.js';
import { pointingAtSelf, relationTargets, withoutMissingTargets, type CurrentModel, type SchemaPlan } from './schema-plan.js';
import type { ModelDefinition } from './types.js';

/** Object fields nest sub-fields at most 8 levels deep (MODEL_LIMITS of the service). */
const FIELD_LEVELS = 8;

function fieldsSelection(levels: number): string {
  const own = 'key label type required indexed relationTo relationType';
  return levels === 1 ? `fields { ${own} }` : `fields { ${own} ${fieldsSelection(levels - 1)} }`;
}

const MODEL_SELECTION =
  'id slug name description icon color displayField deliveryAccess recordCount product { enabled skuField priceField } ' +
  fieldsSelection(FIELD_LEVELS);

const CREATE = `mutation($input: CreateModelDefinitionInput!, $dryRun: Boolean) { model { create(input: $input, dryRun: $dryRun) { id slug } } }`;
const UPDATE = `mutation($input: UpdateModelDefinitionInput!, $dryRun: Boolean) { model { update(input: $input, dryRun: $dryRun) { id slug } } }`;
const DELETE = `mutation($id: ID!) { model { delete(id: $id) { id deleted } } }`;

/** Dry runs at once: a plan of 50 models is checked in a few round trips, without a burst on the server. */
const IN_FLIGHT = 8;

export async function readWorkspaceModels(client: ContentClient): Promise<CurrentModel[]> {
  const data = await client.request<{ model: { list: ModelDefinition[] } }>(
    `query { model { list { ${MODEL_SELECTION} } } }`,
    {},
    { operation: 'listModels' },
  );
  return data.model.list.map((model) => ({ id: model.id, recordCount: model.recordCount, model: toSchemaModel(model) }));
}

function modelInput(model: SchemaModel, fields: readonly SchemaField[] = model.fields) {
  return {
    name: model.name,
    description: model.description,
    icon: model.icon,
    color: model.color,
    displayField: model.displayField,
    deliveryAccess: model.deliveryAccess,
    product: model.product,
    fields,
  };
}

/**
 * Every refusal the server would make of the plan's steps, found by dry runs before any step is made (an empty list:
 * the plan can be applied). A model to be deleted must have no records: --prune deletes only empty models.
 */
export async function checkPlan(client: ContentClient, plan: SchemaPlan, current: readonly CurrentModel[]): Promise<string[]> {
  const existing = new Set(current.map((entry) => entry.model.slug));
  const checks: (() => Promise<string | null>)[] = [];
  for (const model of plan.creates) {
    const { fields } = pointingAtSelf(model.fields, existing, model.slug);
    checks.push(() =>
      refusal(`model ${model.slug}`, () =>
        client.request(CREATE, { input: { slug: model.slug, ...modelInput(model, fields) }, dryRun: true }, { write: true }),
      ),
    );
  }
  for (const update of plan.updates) {
    const fields = withoutMissingTargets(update.after.fields, update.before.fields, existing);
    checks.push(() =>
      refusal(`model ${update.after.slug}`, () =>
        client.request(UPDATE, { input: { id: update.id, ...modelInput(update.after, fields) }, dryRun: true }, { write: true }),
      ),
    );
  }
  const problems: string[] = [];
  for (const entry of plan.deletes) {
    if (entry.recordCount > 0) {
      problems.push(
        `model ${entry.model.slug}: has ${entry.recordCount} records; --prune deletes only models without records (delete them first)`,
      );
    }
  }
  for (let start = 0; start < checks.length; start += IN_FLIGHT) {
    const answers = await Promise.all(checks.slice(start, start + IN_FLIGHT).map((check) => check()));
    for (const answer of answers) if (answer) problems.push(answer);
  }
  return problems;
}

/** The server's refusal of a dry run as one line; null when it would be made. Failures to reach it are thrown. */
async function refusal(what: string, dryRun: () => Promise<unknown>): Promise<string | null> {
  try {
    await dryRun();
    return null;
  } catch (error) {
    if (!(error instanceof ContentServiceError)) throw error;
    if (/Unknown argument "dryRun"/.test(error.message)) {
      throw new ContentServiceError(
        'the server cannot check changes before making them (its model.create and model.update take no dryRun ' +
          'argument), so schema apply changes nothing there; it needs a content-service server of this version or newer',
        { code: error.code },
      );
    }
    if (error.code === 'BAD_USER_INPUT' || error.code === 'CONFLICT' || error.code === 'NOT_FOUND') {
      return `${what}: ${error.message}`;
    }
    throw error;
  }
}

export type StepReport = (line: string) => void;

/** Makes the plan's steps: creates in relation order (wave by wave), updates, then deletes (those pointing at others first). */
export async function applyPlan(
  client: ContentClient,
  plan: SchemaPlan,
  current: readonly CurrentModel[],
  report: StepReport,
): Promise<void> {
  const existing = new Set(current.map((entry) => entry.model.slug));
  const laterUpdates: { id: string; model: SchemaModel }[] = [];
  const create = async (model: SchemaModel) => {
    const { fields, changed } = pointingAtSelf(model.fields, existing, model.slug);
    const created = await client.request<{ model: { create: { id: string } } }>(
      CREATE,
      { input: { slug: model.slug, ...modelInput(model, fields) } },
      { write: true, operation: 'createModel' },
    );
    report(`created model ${model.slug}${changed ? ' (its relations to models not yet created follow)' : ''}`);
    if (changed) laterUpdates.push({ id: created.model.create.id, model });
  };
  for (const wave of creationWaves(plan.creates)) {
    await oneByOne(wave, create);
    for (const model of wave) existing.add(model.slug);
  }
  await oneByOne(plan.updates, async (update) => {
    await client.request(
      UPDATE,
      { input: { id: update.id, ...modelInput(update.after) } },
      { write: true, operation: 'updateModel' },
    );
    report(`updated model ${update.after.slug}`);
  });
  await oneByOne(laterUpdates, async (later) => {
    await client.request(
      UPDATE,
      { input: { id: later.id, ...modelInput(later.model) } },
      { write: true, operation: 'updateModel' },
    );
    report(`updated model ${later.model.slug}: relations to the models created after it`);
  });
  await deleteModels(client, plan.deletes, report);
}

/**
 * The creates in waves: each wave the models (in relation order) whose targets among the new models are all in
 * earlier waves. When none is (a cycle), the first one left makes a wave of its own and points at itself until the
 * others exist.
 */
function creationWaves(creates: readonly SchemaModel[]): SchemaModel[][] {
  const waves: SchemaModel[][] = [];
  let pending = [...creates];
  while (pending.length > 0) {
    const waiting = new Set(pending.map((model) => model.slug));
    let wave = pending.filter(
      (model) => ![...relationTargets(model.fields)].some((slug) => slug !== model.slug && waiting.has(slug)),
    );
    if (wave.length === 0) wave = [pending[0]!];
    const inWave = new Set(wave);
    pending = pending.filter((model) => !inWave.has(model));
    waves.push(wave);
  }
  return waves;
}

/**
 * Model writes one at a time: on PostgreSQL two model.create or model.update calls that build field indexes at the
 * same time can deadlock (each waits for the other's lock on the records table) and one fails.
 */
async function oneByOne<T>(items: readonly T[], step: (item: T) => Promise<void>): Promise<void> {
  for (const item of items) await step(item);
}

/**
 * The server refuses to delete a model that another one points at: delete those that no remaining one points at
 * first; in a cycle, point one model's relations at itself (it has no records) to break it.
 */
async function deleteModels(client: ContentClient, deletes: readonly CurrentModel[], report: StepReport): Promise<void> {
  const remaining = new Map(deletes.map((entry) => [entry.model.slug, entry]));
  const pointedAt = (slug: string) =>
    [...remaining.values()].some(
      (entry) => entry.model.slug !== slug && entry.model.fields.some((field) => field.relationTo === `model:${slug}`),
    );
  while (remaining.size > 0) {
    const free = [...remaining.values()].find((entry) => !pointedAt(entry.model.slug));
    if (free) {
      await client.request(DELETE, { id: free.id }, { write: true, operation: 'deleteModel' });
      remaining.delete(free.model.slug);
      report(`deleted model ${free.model.slug}`);
      continue;
    }
    // Stuck: every model left is pointed at, so some model points at another; each pass removes such relations.
    const pointsAtOther = (candidate: CurrentModel) =>
      candidate.model.fields.some(
        (field) =>
          field.relationTo && field.relationTo !== `model:${candidate.model.slug}` && remaining.has(field.relationTo.slice(6)),
      );
    const entry = [...remaining.values()].find(pointsAtOther)!;
    const others = new Set([...remaining.keys()].filter((slug) => slug !== entry.model.slug));
    const fields = entry.model.fields.map((field) =>
      field.relationTo && others.has(field.relationTo.slice('model:'.length))
        ? { ...field, relationTo: `model:${entry.model.slug}` }
        : field,
    );
    await client.request(UPDATE, { input: { id: entry.id, fields } }, { write: true, operation: 'updateModel' });
    entry.model = { ...entry.model, fields };
  }
}
