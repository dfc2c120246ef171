import { Command } from 'commander';
import { registerBootstrap } from './bootstrap.js';
import { registerExport } from './export.js';
import { registerImport } from './import.js';
import { registerMcp } from './mcp.js';
import { registerModels } from './models.js';
import { registerServe } from './serve.js';
import { registerToken } from './token.js';
import { registerUser } from './user.js';

export async function runCli(argv: string[]): Promise<void> {
  const program = new Command('content-service')
    .description(
      'Headless content service: models and records through an admin GraphQL API, public reads through a delivery route',
    )
    .showHelpAfterError();
  registerServe(program);
  registerBootstrap(program);
  registerToken(program);
  registerUser(program);
  registerImport(program);
  registerExport(program);
  registerModels(program);
  registerMcp(program);
  await program.parseAsync(argv);
}
