// content-service models: the models of the workspace.
import type { Command } from 'commander';
import { connectionOptions, makeClient, runCommand, type ConnectionOptions } from './client-options.js';
import { formatTable } from './table.js';

export function registerModels(program: Command): void {
  connectionOptions(
    program
      .command('models')
      .description('List the models of the workspace (slug, name, id, records, fields); also checks the connection')
      .option('--json', 'print the model definitions as JSON'),
  ).action(async (options: ConnectionOptions & { json?: boolean }) =>
    runCommand(async () => {
      const models = await makeClient(options).listModels();
      if (options.json) {
        process.stdout.write(JSON.stringify(models, null, 2) + '\n');
        return 0;
      }
      if (models.length === 0) {
        process.stdout.write('No models in this workspace.\n');
        return 0;
      }
      const rows = [
        ['SLUG', 'NAME', 'ID', 'RECORDS', 'FIELDS'],
        ...models.map((model) => [
          model.slug,
          model.name,
          model.id,
          String(model.recordCount),
          model.fields.map((field) => `${field.key}:${field.type}${field.required ? '!' : ''}`).join(' '),
        ]),
      ];
      process.stdout.write(formatTable(rows) + '\n');
      return 0;
    }),
  );
}
