// The admin API calls of `content-service schema`: the workspace's models to the deepest sub-field, the dry runs that
// check every step of a plan before any is made, and the steps themselves.
import type { ContentClient } from './client.js';
import { ContentServiceError } from './errors.js';
import { countNotPublished } from './publishing.js';
import { toSchemaModel, type SchemaField, type SchemaModel } from './schema-document.js';
import { pointingAtSelf, relationTargets, withoutMissingTargets, type CurrentModel, type SchemaPlan } from './schema-plan.js';
import type { ModelDefinition } from './types.js';

/** Object fields nest sub-fields at most 8 levels deep (MODEL_LIMITS of the service). */
const FIELD_LEVELS = 8;

function fieldsSelection(levels: number): string {
  const own = 'key label type required indexed relationTo relationType multiple acceptedTypes';
  return levels === 1 ? `fields { ${own} }` : `fields { ${own} ${fieldsSelection(levels - 1)} }`;
}

const MODEL_SELECTION =
  'id slug name description icon color displayField deliveryAccess drafts recordCount product { enabled skuField priceField } ' +
  fieldsSelection(FIELD_LEVELS);

const UPDATE = `mutation($input: UpdateModelDefinitionInput!, $dryRun: Boolean) { model { update(input: $input, dryRun: $dryRun) { id slug } } }`;
const DELETE = `mutation($id: ID!) { model { delete(id: $id) { id deleted } } }`;

/**
 * Model writes (or their dry runs) sent in one GraphQL document, each under an alias: a plan of 50 models is checked
 * and made in a few requests. The server allows 30 aliases a document; it runs a document's mutations one after
 * another (never two model writes at once, which on PostgreSQL could deadlock), each in its own transaction.
 */
const WRITES_PER_DOCUMENT = 25;
/** Dry runs a document: smaller, the documents checked side by side on the server's connections (8 at once before). */
const DRY_RUNS_PER_DOCUMENT = 10;

interface ModelWrite {
  kind: 'create' | 'update';
  input: Record<string, unknown>;
}

/** What became of one write of a document: done (with the model's id), or refused with the server's error. */
type WriteOutcome = { id: string } | ContentServiceError;

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
    drafts: model.drafts,
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
  const writes: { what: string; write: ModelWrite }[] = [];
  for (const model of plan.creates) {
    const { fields } = pointingAtSelf(model.fields, existing, model.slug);
    writes.push({
      what: `model ${model.slug}`,
      write: { kind: 'create', input: { slug: model.slug, ...modelInput(model, fields) } },
    });
  }
  for (const update of plan.updates) {
    const fields = withoutMissingTargets(update.after.fields, update.before.fields, existing);
    writes.push({
      what: `model ${update.after.slug}`,
      write: { kind: 'update', input: { id: update.id, ...modelInput(update.after, fields) } },
    });
  }
  const problems: string[] = [];
  for (const entry of plan.deletes) {
    if (entry.recordCount > 0) {
      problems.push(
        `model ${entry.model.slug}: has ${entry.recordCount} records; --prune deletes only models without records (delete them first)`,
      );
    }
  }
  problems.push(...(await draftsStillInUse(client, plan)));
  let outcomes: WriteOutcome[];
  try {
    outcomes = await modelWrites(
      client,
      writes.map((entry) => entry.write),
      true,
    );
  } catch (error) {
    if (error instanceof ContentServiceError && /Unknown argument "dryRun"/.test(error.message)) {
      throw new ContentServiceError(
        'the server cannot check changes before making them (its model.create and model.update take no dryRun ' +
          'argument), so schema apply changes nothing there; it needs a content-service server of this version or newer',
        { code: error.code },
      );
    }
    throw error;
  }
  outcomes.forEach((outcome, index) => {
    if (outcome instanceof ContentServiceError) problems.push(refusal(writes[index]!.what, outcome));
  });
  return problems;
}

/**
 * Updates that turn drafts off while records are not published: the server refuses them (CONFLICT) as it makes them,
 * but its dry run does not check it, so the records are counted here (each such model's records listed once).
 */
async function draftsStillInUse(client: ContentClient, plan: SchemaPlan): Promise<string[]> {
  const turnedOff = plan.updates.filter((update) => update.before.drafts && !update.after.drafts);
  const counts = await Promise.all(turnedOff.map((update) => countNotPublished(client, update.id)));
  return turnedOff.flatMap((update, index) => {
    const count = counts[index]!;
    if (count === 0) return [];
    return [
      `model ${update.after.slug}: drafts cannot be turned off while ${count} record${count === 1 ? ' is' : 's are'} ` +
        'not published (draft or changed); publish or discard them first (content-service publish --all-changed)',
    ];
  });
}

/** The server's refusal of a dry run as one line; an error that is not a refusal (the server failed) is thrown. */
function refusal(what: string, error: ContentServiceError): string {
  if (error.code === 'BAD_USER_INPUT' || error.code === 'CONFLICT' || error.code === 'NOT_FOUND')
    return `${what}: ${error.message}`;
  throw error;
}

/**
 * Sends the writes, WRITES_PER_DOCUMENT to a document, and answers what became of each in their order. Dry runs
 * (which write nothing) go in documents of DRY_RUNS_PER_DOCUMENT, all at once; writes one document after another.
 * An error of the whole request (no answer, a document the server refused before running it) is thrown.
 */
async function modelWrites(client: ContentClient, writes: readonly ModelWrite[], dryRun: boolean): Promise<WriteOutcome[]> {
  const size = dryRun ? DRY_RUNS_PER_DOCUMENT : WRITES_PER_DOCUMENT;
  const parts: ModelWrite[][] = [];
  for (let start = 0; start < writes.length; start += size) parts.push(writes.slice(start, start + size));
  const send = (part: readonly ModelWrite[]) => writeDocument(client, part, dryRun);
  const answers: WriteOutcome[][] = [];
  if (dryRun) answers.push(...(await Promise.all(parts.map(send))));
  else for (const part of parts) answers.push(await send(part));
  return answers.flat();
}

async function writeDocument(client: ContentClient, part: readonly ModelWrite[], dryRun: boolean): Promise<WriteOutcome[]> {
  const declarations = part.map(
    (write, index) => `$w${index}: ${write.kind === 'create' ? 'Create' : 'Update'}ModelDefinitionInput!`,
  );
  const fields = part.map((write, index) => `w${index}: model { ${write.kind}(input: $w${index}, dryRun: $dryRun) { id } }`);
  const variables: Record<string, unknown> = { dryRun };
  part.forEach((write, index) => (variables[`w${index}`] = write.input));
  try {
    const data = await client.request<Record<string, Record<string, { id: string }>>>(
      `mutation(${declarations.join(', ')}, $dryRun: Boolean) { ${fields.join(' ')} }`,
      variables,
      { write: true, operation: dryRun ? 'checkModels' : 'writeModels' },
    );
    return part.map((write, index) => data[`w${index}`]![write.kind]!);
  } catch (error) {
    if (!(error instanceof ContentServiceError)) throw error;
    const failed = errorsByWrite(error);
    if (failed === null) throw error;
    // The writes without an error were made (their ids are not in an answer with errors; none is needed then).
    return part.map((_, index) => failed.get(index) ?? { id: '' });
  }
}

/**
 * The errors of a document's answer by the index of the write they belong to (their path starts `w<index>`); null
 * when one belongs to none.
 */
function errorsByWrite(error: ContentServiceError): Map<number, ContentServiceError> | null {
  const byWrite = new Map<number, ContentServiceError>();
  for (const entry of error.errors as { message: string; extensions?: Record<string, unknown>; path?: unknown }[]) {
    const alias: unknown = Array.isArray(entry.path) ? (entry.path as unknown[])[0] : undefined;
    const match = typeof alias === 'string' ? /^w(\d+)$/.exec(alias) : null;
    if (!match) return null;
    const index = Number(match[1]);
    if (byWrite.has(index)) continue;
    const extensions = entry.extensions ?? {};
    byWrite.set(
      index,
      new ContentServiceError(entry.message, {
        code: typeof extensions.code === 'string' ? extensions.code : 'INTERNAL',
        field: typeof extensions.field === 'string' ? extensions.field : undefined,
        status: error.status,
        requestId: error.requestId,
        extensions,
        errors: [entry],
      }),
    );
  }
  return byWrite.size > 0 ? byWrite : null;
}

/** Makes the writes (in documents of several); reports each made one; throws the first refusal after reporting. */
async function makeWrites<T>(
  client: ContentClient,
  items: readonly T[],
  writeOf: (item: T) => ModelWrite,
  made: (item: T, id: string) => void,
): Promise<void> {
  const outcomes = await modelWrites(client, items.map(writeOf), false);
  const refused: ContentServiceError[] = [];
  outcomes.forEach((outcome, index) => {
    if (outcome instanceof ContentServiceError) refused.push(outcome);
    else made(items[index]!, outcome.id);
  });
  if (refused.length > 0) throw refused[0]!;
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
  for (const wave of creationWaves(plan.creates)) {
    const pointing = new Map(wave.map((model) => [model, pointingAtSelf(model.fields, existing, model.slug)]));
    await makeWrites(
      client,
      wave,
      (model) => ({ kind: 'create', input: { slug: model.slug, ...modelInput(model, pointing.get(model)!.fields) } }),
      (model, id) => {
        const { changed } = pointing.get(model)!;
        report(`created model ${model.slug}${changed ? ' (its relations to models not yet created follow)' : ''}`);
        if (changed) laterUpdates.push({ id, model });
      },
    );
    for (const model of wave) existing.add(model.slug);
  }
  await makeWrites(
    client,
    plan.updates,
    (update) => ({ kind: 'update', input: { id: update.id, ...modelInput(update.after) } }),
    (update) => report(`updated model ${update.after.slug}`),
  );
  await makeWrites(
    client,
    laterUpdates,
    (later) => ({ kind: 'update', input: { id: later.id, ...modelInput(later.model) } }),
    (later) => report(`updated model ${later.model.slug}: relations to the models created after it`),
  );
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
