// content-service types [--out FILE] [--check]: the models of the workspace as TypeScript, read through the API.
import { readFile, writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { renderModelTypes, type TypedModel } from '../client/render-types.js';
import type { ContentClient } from '../client/client.js';
import { connectionOptions, fileProblem, makeClient, runCommand, UsageError, type ConnectionOptions } from './client-options.js';
import { lineDiff } from './line-diff.js';

interface TypesOptions extends ConnectionOptions {
  out?: string;
  check?: boolean;
}

/** Levels of `fields { … }` asked for: object fields nest sub-fields at most 8 levels deep (MODEL_LIMITS). */
const FIELD_LEVELS = 8;

function fieldsSelection(levels: number): string {
  const own = 'key label type required relationTo relationType multiple acceptedTypes';
  return levels === 1 ? `fields { ${own} }` : `fields { ${own} ${fieldsSelection(levels - 1)} }`;
}

const TYPED_MODEL_FIELDS = `slug name ${fieldsSelection(FIELD_LEVELS)}`;
/** Every model with its fields to the deepest level (`listModels` asks for three). */
const MODELS_QUERY = `query { model { list { ${TYPED_MODEL_FIELDS} } } }`;
const MODEL_QUERY = `query($id: ID!) { model { get(id: $id) { ${TYPED_MODEL_FIELDS} } } }`;

export async function readTypedModels(client: ContentClient): Promise<TypedModel[]> {
  return (await client.request<{ model: { list: TypedModel[] } }>(MODELS_QUERY, {}, { operation: 'listModels' })).model.list;
}

/** One model with its fields to the deepest level, or null when there is none with that id. */
export async function readTypedModel(client: ContentClient, id: string): Promise<TypedModel | null> {
  return (await client.request<{ model: { get: TypedModel | null } }>(MODEL_QUERY, { id }, { operation: 'getModel' })).model.get;
}

export function registerTypes(program: Command): void {
  connectionOptions(
    program
      .command('types')
      .description(
        'Write TypeScript types for the data of every model: one interface per model, and Models, the map by slug ' +
          'that new ContentClient<Models>(…) takes. With --check, write nothing and compare with --out instead: exit 0 ' +
          'when it is up to date, 1 (and a diff) when it is not; 2 for a usage error.',
      )
      .option('--out <file>', 'file to write (default: stdout)')
      .option('--check', 'write nothing: exit 0 when --out is up to date, 1 (with a diff) when it is not'),
  ).action(async (options: TypesOptions) => runCommand(() => runTypes(options)));
}

async function runTypes(options: TypesOptions): Promise<number> {
  if (options.check && !options.out) throw new UsageError('--check: needs --out FILE, the file to compare with');
  const client = makeClient(options);
  const text = renderModelTypes(await readTypedModels(client));
  if (!options.out) {
    process.stdout.write(text);
    return 0;
  }
  if (options.check) return check(options.out, text);
  try {
    await writeFile(options.out, text);
  } catch (error) {
    throw new UsageError(`--out: cannot write ${options.out}: ${fileProblem(error, 'no such directory')}`);
  }
  process.stderr.write(`Wrote the types of the workspace's models to ${options.out}\n`);
  return 0;
}

async function check(out: string, text: string): Promise<number> {
  let current: string;
  try {
    current = await readFile(out, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new UsageError(`--out: cannot read ${out}: ${fileProblem(error)}`);
    process.stderr.write(`${out} does not exist; write it with: content-service types --out ${out}\n`);
    return 1;
  }
  // A checkout with CRLF line ends (git's autocrlf on Windows) holds the same text.
  if (current.replaceAll('\r\n', '\n') === text) {
    process.stderr.write(`${out} is up to date\n`);
    return 0;
  }
  process.stdout.write(lineDiff(current.replaceAll('\r\n', '\n'), text, [out, 'models of the workspace']));
  process.stderr.write(`${out} is out of date: the models changed; regenerate with: content-service types --out ${out}\n`);
  return 1;
}
