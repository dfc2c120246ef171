import { readFileSync } from 'node:fs';
import { Command, type CommanderError } from 'commander';
import { UsageError } from './client-options.js';

type RegisterCommand = (program: Command) => void;

/**
 * Each command's module, in the order help lists them. Only the module of the command being run is loaded (all of
 * them for top-level help), so that a short command such as `bootstrap` does not load the server and both databases.
 */
const COMMANDS: Record<string, () => Promise<RegisterCommand>> = {
  serve: async () => (await import('./serve.js')).registerServe,
  bootstrap: async () => (await import('./bootstrap.js')).registerBootstrap,
  token: async () => (await import('./token.js')).registerToken,
  user: async () => (await import('./user.js')).registerUser,
  import: async () => (await import('./import.js')).registerImport,
  export: async () => (await import('./export.js')).registerExport,
  publish: async () => (await import('./publish.js')).registerPublish,
  models: async () => (await import('./models.js')).registerModels,
  mcp: async () => (await import('./mcp.js')).registerMcp,
  types: async () => (await import('./types.js')).registerTypes,
  assets: async () => (await import('./assets.js')).registerAssets,
  schema: async () => (await import('./schema.js')).registerSchema,
  copy: async () => (await import('./copy.js')).registerCopy,
  backup: async () => (await import('./backup.js')).registerBackup,
};

/** Commands registered by another command's module. */
const REGISTERED_BY: Record<string, string> = { workspace: 'token' };

async function commandsFor(argv: string[]): Promise<RegisterCommand[]> {
  const name = argv[2] === undefined ? '' : (REGISTERED_BY[argv[2]] ?? argv[2]);
  const named = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  const loaders = named === undefined ? Object.values(COMMANDS) : [named];
  return Promise.all(loaders.map((load) => load()));
}

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
  for (const register of await commandsFor(argv)) register(program);
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
