// content-service schema pull | diff | apply: the models of a workspace as one JSON file, kept in git and applied to
// other workspaces and servers, through the admin API only.
import { readFile, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import type { ContentClient } from '../client/client.js';
import { checkPlan, applyPlan, readWorkspaceModels } from '../client/schema-apply.js';
import { parseSchemaDocument, renderSchemaDocument, schemaDocumentOf, SchemaFileError } from '../client/schema-document.js';
import { modelsOnlyInWorkspace, planSchema, type CurrentModel, type SchemaPlan } from '../client/schema-plan.js';
import { connectionOptions, fileProblem, makeClient, runCommand, UsageError, type ConnectionOptions } from './client-options.js';

interface PullOptions extends ConnectionOptions {
  out?: string;
}

interface DiffOptions extends ConnectionOptions {
  prune?: boolean;
}

interface ApplyOptions extends DiffOptions {
  yes?: boolean;
}

export function registerSchema(program: Command): void {
  const schema = program
    .command('schema')
    .description('Models as code: pull the models of a workspace into a JSON file, diff it with a workspace, apply it');
  connectionOptions(
    schema
      .command('pull')
      .description('Write every model of the workspace as one JSON document (sorted, relations by slug, no ids)')
      .option('--out <file>', 'file to write (default: stdout)'),
  ).action((options: PullOptions) => runCommand(() => pull(options)));
  connectionOptions(
    schema
      .command('diff')
      .description(
        'Show what `schema apply FILE` would change, one line per change. Exit 0: nothing to change; 2: there are ' +
          'changes (2 is also the exit status of a usage error, which prints "Error:" and nothing on stdout); 1: a ' +
          'mistake in the file or a failure',
      )
      .argument('<file>', 'schema file (from schema pull)')
      .option('--prune', 'count the models that are not in the file as changes (apply --prune deletes them)'),
  ).action((file: string, options: DiffOptions) => runCommand(() => diff(file, options)));
  connectionOptions(
    schema
      .command('apply')
      .description(
        'Create and update models until the workspace matches the file. Every change is checked by the server first ' +
          '(a dry run); if stored records would violate any, nothing is changed. Applying the same file again changes nothing',
      )
      .argument('<file>', 'schema file (from schema pull)')
      .option('--prune', 'also delete the models that are not in the file (only models without records)')
      .option('--yes', 'delete without asking (needed for --prune without a terminal)'),
  ).action((file: string, options: ApplyOptions) => runCommand(() => apply(file, options)));
}

async function pull(options: PullOptions): Promise<number> {
  const current = await readWorkspaceModels(makeClient(options));
  const text = renderSchemaDocument(schemaDocumentOf(current.map((entry) => entry.model)));
  if (!options.out) {
    process.stdout.write(text);
    return 0;
  }
  try {
    await writeFile(options.out, text);
  } catch (error) {
    throw new UsageError(`--out: cannot write ${options.out}: ${fileProblem(error)}`);
  }
  process.stderr.write(`Wrote ${current.length} model${current.length === 1 ? '' : 's'} to ${options.out}\n`);
  return 0;
}

/** The workspace's models and the plan from them to the file; a file with mistakes prints them all and gives 1. */
async function planFor(
  file: string,
  options: DiffOptions,
): Promise<{ client: ContentClient; current: CurrentModel[]; plan: SchemaPlan; onlyInWorkspace: string[] } | 1> {
  const text = await readSchemaFile(file);
  const client = makeClient(options);
  const current = await readWorkspaceModels(client);
  // Relations may point at models of the workspace that the file leaves out, unless --prune deletes them.
  const staying = options.prune ? new Set<string>() : new Set(current.map((entry) => entry.model.slug));
  let document;
  try {
    document = parseSchemaDocument(file, text, staying);
  } catch (error) {
    if (!(error instanceof SchemaFileError)) throw error;
    process.stderr.write(`Error: ${error.message}\nNothing was changed.\n`);
    return 1;
  }
  return {
    client,
    current,
    plan: planSchema(current, document, options.prune === true),
    onlyInWorkspace: modelsOnlyInWorkspace(current, document),
  };
}

async function diff(file: string, options: DiffOptions): Promise<number> {
  const planned = await planFor(file, options);
  if (planned === 1) return 1;
  const { plan, onlyInWorkspace } = planned;
  if (plan.lines.length > 0) process.stdout.write(plan.lines.join('\n') + '\n');
  if (!options.prune && onlyInWorkspace.length > 0) {
    process.stderr.write(`Not in ${file} (apply --prune would delete them): ${onlyInWorkspace.join(', ')}\n`);
  }
  if (plan.lines.length === 0) {
    process.stderr.write(`No changes: the workspace matches ${file}\n`);
    return 0;
  }
  process.stderr.write(`${changeCount(plan)}\n`);
  return 2;
}

async function apply(file: string, options: ApplyOptions): Promise<number> {
  const started = Date.now();
  const planned = await planFor(file, options);
  if (planned === 1) return 1;
  const { client, current, plan, onlyInWorkspace } = planned;
  if (!options.prune && onlyInWorkspace.length > 0) {
    process.stderr.write(`Left as they are (not in ${file}; --prune deletes them): ${onlyInWorkspace.join(', ')}\n`);
  }
  if (plan.lines.length === 0) {
    process.stdout.write(`No changes: the workspace already matches ${file}\n`);
    return 0;
  }
  process.stdout.write(plan.lines.join('\n') + '\n');
  const problems = await checkPlan(client, plan, current);
  if (problems.length > 0) {
    process.stderr.write(
      `Error: refused; stored records or the server's checks do not allow ${problems.length === 1 ? 'this change' : 'these changes'}:\n` +
        problems.map((problem) => `  ${problem}`).join('\n') +
        '\nNothing was changed.\n',
    );
    return 1;
  }
  if (plan.deletes.length > 0 && !options.yes) await confirmDeletes(plan);
  await applyPlan(client, plan, current, (line) => process.stderr.write(`${line}\n`));
  const seconds = ((Date.now() - started) / 1000).toFixed(2);
  process.stdout.write(
    `Applied: ${plan.creates.length} created, ${plan.updates.length} updated, ${plan.deletes.length} deleted in ${seconds} s\n`,
  );
  return 0;
}

async function confirmDeletes(plan: SchemaPlan): Promise<void> {
  const slugs = plan.deletes.map((entry) => entry.model.slug).join(', ');
  if (!process.stdin.isTTY) {
    throw new UsageError(
      `--prune would delete ${plan.deletes.length} model${plan.deletes.length === 1 ? '' : 's'} (${slugs}); ` +
        'there is no terminal to ask on: add --yes to delete them. Nothing was changed',
    );
  }
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await prompt.question(`Delete ${plan.deletes.length} model(s) not in the file (${slugs})? [y/N] `);
    if (!/^y(es)?$/i.test(answer.trim())) throw new UsageError('not confirmed; nothing was changed');
  } finally {
    prompt.close();
  }
}

function changeCount(plan: SchemaPlan): string {
  return `${plan.lines.length} change${plan.lines.length === 1 ? '' : 's'}: ${plan.creates.length} model(s) to create, ${plan.updates.length} to update, ${plan.deletes.length} to delete`;
}

async function readSchemaFile(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${fileProblem(error)}`);
  }
}
