import type { Command } from 'commander';
import { UsageError } from './client-options.js';
import { hashToken } from '../services/tokens.js';
import type { Role } from '../domain/roles.js';
import type { ApiTokenInfo } from '../domain/workspace.js';
import { openStore } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { issueToken } from '../services/issue-token.js';
import { formatTable } from './table.js';
import { databaseUrl, parseEmail, parsePositiveInt, parseRole } from './options.js';

async function withStore<T>(database: string | undefined, run: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(databaseUrl(database));
  try {
    return await run(store);
  } finally {
    await store.close();
  }
}

/** The work could not be done (exit 1), as opposed to a command-line mistake (UsageError, exit 2). */
function fail(message: string): never {
  throw new Error(message);
}

export interface CreatedToken {
  workspaceId: string;
  userId: string;
  email: string;
  role: Role;
  tokenId: string;
  token: string;
}

/**
 * What `token create` does: makes the user a member of the workspace if it is not one (with `role`, else editor;
 * an existing member's role changes only when `role` is given) and issues a token acting as them. Null when the
 * workspace does not exist.
 */
export async function createWorkspaceToken(
  store: Store,
  input: { workspaceId: string; email: string; role?: Role; name?: string; expiresInDays?: number },
): Promise<CreatedToken | null> {
  const membership = await store.tenancy.ensureMemberOf(input.workspaceId, input.email, input.role ?? null, 'editor');
  if (!membership) return null;
  const expiresAt = input.expiresInDays ? new Date(Date.now() + input.expiresInDays * 86_400_000).toISOString() : null;
  const issued = await issueToken(store, input.workspaceId, membership.userId, { name: input.name ?? null, expiresAt });
  return {
    workspaceId: input.workspaceId,
    userId: membership.userId,
    email: membership.email,
    role: membership.role,
    tokenId: issued.id,
    token: issued.token,
  };
}

export function registerToken(program: Command): void {
  const token = program.command('token').description('Create, list and revoke API tokens');

  token
    .command('create')
    .description(
      'Create an API token acting as a user in a workspace. The user and the membership are created when missing ' +
        '(default role editor); --role sets the role. The token is shown once and stored only as a hash.',
    )
    .requiredOption('--workspace-id <id>', 'the workspace the token is bound to')
    .requiredOption('--email <email>', 'the user the token acts as', parseEmail)
    .option('--role <role>', 'owner, admin, editor or viewer', parseRole)
    .option('--name <name>', 'a label for the token')
    .option('--expires-in-days <days>', 'the token stops working after this many days', parsePositiveInt)
    .option('--database <url>', 'sqlite:<path> or postgres://… (env DATABASE_URL)')
    .option('--json', 'print one JSON line: {"workspaceId","userId","email","role","tokenId","token"}')
    .action(
      async (options: {
        workspaceId: string;
        email: string;
        role?: Role;
        name?: string;
        expiresInDays?: number;
        database?: string;
        json?: boolean;
      }) =>
        withStore(options.database, async (store) => {
          const result = await createWorkspaceToken(store, options);
          if (!result) fail(`No workspace with id "${options.workspaceId}"`);
          if (options.json) console.log(JSON.stringify(result));
          else
            console.log(
              `API token for ${result.email} (${result.role}): ${result.token}\nToken id: ${result.tokenId} (shown once: keep the token)`,
            );
        }),
    );

  token
    .command('list')
    .description(
      'List the API tokens of a workspace, newest first: name, user, role, created, last used, expiry and status (never the token)',
    )
    .requiredOption('--workspace-id <id>', 'the workspace')
    .option('--database <url>', 'sqlite:<path> or postgres://… (env DATABASE_URL)')
    .option('--json', 'print one JSON object per line')
    .action(async (options: { workspaceId: string; database?: string; json?: boolean }) =>
      withStore(options.database, async (store) => {
        const workspace = await store.tenancy.findWorkspace(options.workspaceId);
        if (!workspace) fail(`No workspace with id "${options.workspaceId}"`);
        const tokens = await store.tenancy.listTokens(workspace.id);
        if (options.json) {
          for (const info of tokens)
            console.log(JSON.stringify({ workspace: `${workspace.orgSlug}/${workspace.slug}`, ...info }));
          return;
        }
        console.log(formatTokenTable(tokens, `${workspace.orgSlug}/${workspace.slug}`, Date.now()));
      }),
    );

  token
    .command('revoke')
    .description('Revoke an API token, by its id or by the token itself; it stops working at once')
    .option('--token-id <id>', 'the id printed when the token was created')
    .option('--token <token>', 'the token itself (cs_…)')
    .option('--database <url>', 'sqlite:<path> or postgres://… (env DATABASE_URL)')
    .action(async (options: { tokenId?: string; token?: string; database?: string }) =>
      withStore(options.database, async (store) => {
        let id = options.tokenId;
        if (!id && options.token) id = (await store.tenancy.findTokenByHash(hashToken(options.token)))?.id;
        if (!id && !options.token) throw new UsageError('Give --token-id or --token');
        if (!id) fail('No token matches --token');
        if (!(await store.tenancy.revokeToken(id))) fail('No active token with that id');
        console.log(`Token ${id} revoked`);
      }),
    );

  program
    .command('workspace')
    .description('Workspace settings')
    .command('set-budget')
    .description('Set the record write budget per minute of one workspace (API-token writes)')
    .requiredOption('--workspace-id <id>', 'the workspace')
    .option('--budget <n>', 'writes per minute', parsePositiveInt)
    .option('--default', "go back to the server's default budget (serve --write-budget)")
    .option('--database <url>', 'sqlite:<path> or postgres://… (env DATABASE_URL)')
    .action(async (options: { workspaceId: string; budget?: number; default?: boolean; database?: string }) => {
      if ((options.budget === undefined) === (options.default === undefined)) {
        throw new UsageError('Give either --budget N or --default');
      }
      const budget = options.budget ?? null;
      await withStore(options.database, async (store) => {
        if (!(await store.tenancy.setWriteBudget(options.workspaceId, budget))) {
          fail(`No workspace with id "${options.workspaceId}"`);
        }
        console.log(
          budget === null
            ? `Write budget of workspace ${options.workspaceId}: the server's default (serve --write-budget)`
            : `Write budget of workspace ${options.workspaceId}: ${budget} per minute`,
        );
      });
    });
}

function formatTokenTable(tokens: readonly ApiTokenInfo[], workspace: string, now: number): string {
  if (tokens.length === 0) return `No API tokens in workspace ${workspace}`;
  const day = (iso: string | null, none: string) => (iso ? iso.slice(0, 16).replace('T', ' ') : none);
  const status = (token: ApiTokenInfo) => {
    if (token.revokedAt) return 'revoked';
    if (token.expiresAt && Date.parse(token.expiresAt) <= now) return 'expired';
    return token.role ? 'active' : 'no member';
  };
  const rows = tokens.map((token) => [
    token.name ?? '(no name)',
    token.id,
    token.userEmail,
    token.role ?? '-',
    day(token.createdAt, '-'),
    day(token.lastUsedAt, 'never'),
    day(token.expiresAt, 'never'),
    status(token),
  ]);
  const header = ['NAME', 'ID', 'USER', 'ROLE', 'CREATED', 'LAST USED', 'EXPIRES', 'STATUS'];
  return `API tokens of workspace ${workspace} (times in UTC)\n${formatTable([header, ...rows])}`;
}
