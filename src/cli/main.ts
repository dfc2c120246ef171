import { readFileSync } from 'node:fs';
import { Command, type CommanderError } from 'commander';
import { UsageError } from './client-options.js';
import { registerBackup } from './backup.js';
import { registerBootstrap } from './bootstrap.js';
import { registerCopy } from './copy.js';
import { registerExport } from './export.js';
import { registerImport } from './import.js';
import { registerMcp } from './mcp.js';
import { registerModels } from './models.js';
import { registerServe } from './serve.js';
import { registerToken } from './token.js';
import { registerTypes } from './types.js';
import { registerUser } from './user.js';

export async function runCli(argv: string[]): Promise<void> {
  const program = new Command('content-service')
    .description(
      'Headless content service: models and records through an admin GraphQL API, public reads through a delivery route',
    )
    .version(packageVersion(), '-V, --version', 'print the version of content-service')
    .showHelpAfterError()
    // Commander's own refusals (it has printed them) come here instead of exiting, so that they exit 2; inherited
    // by the commands registered below. Errors thrown by a command's action do not pass here.
    .exitOverride((error: CommanderError) => {
      throw new CommandLineMistake(error.exitCode);
    });
  registerServe(program);
  registerBootstrap(program);
  registerToken(program);
  registerUser(program);
  registerImport(program);
  registerExport(program);
  registerModels(program);
  registerMcp(program);
  registerTypes(program);
  registerCopy(program);
  registerBackup(program);
  try {
    await program.parseAsync(argv);
  } catch (error) {
    process.exitCode = usageExitCode(error);
  }
}

class CommandLineMistake extends Error {
  constructor(readonly exitCode: number) {
    super('command line');
  }
}

/** Exit status 2 for a command-line mistake, 0 for --help and --version; anything else is a failure of the work. */
function usageExitCode(error: unknown): number {
  if (error instanceof UsageError) {
    process.stderr.write(`Error: ${error.message}\n`);
    return 2;
  }
  if (!(error instanceof CommandLineMistake)) throw error;
  return error.exitCode === 0 ? 0 : 2;
}

function packageVersion(): string {
  const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return packageJson.version;
}
