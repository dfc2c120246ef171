import type { Command } from 'commander';
import type { Role } from '../domain/roles.js';
import { openStore } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { issueToken } from '../services/issue-token.js';
import { hashPassword } from '../auth/passwords.js';
import { readNewPassword } from './password-input.js';
import { databaseUrl, envPasswordHashCost, parseEmail, parseRole, parseSlug } from './options.js';

export interface BootstrapResult {
  org: string;
  workspace: string;
  workspaceId: string;
  userId: string;
  token: string;
}

export async function bootstrapWorkspace(
  store: Store,
  input: { org: string; workspace: string; email: string; role: Role | null },
): Promise<BootstrapResult> {
  const { workspace, membership } = await store.tenancy.ensureMembership({
    orgSlug: input.org,
    workspaceSlug: input.workspace,
    email: input.email,
    role: input.role,
    defaultRole: 'owner',
  });
  const { token } = await issueToken(store, workspace.id, membership.userId, { name: 'bootstrap' });
  return { org: input.org, workspace: input.workspace, workspaceId: workspace.id, userId: membership.userId, token };
}

interface BootstrapOptions {
  org: string;
  workspace: string;
  email?: string;
  role?: Role;
  database?: string;
  json?: boolean;
  passwordStdin?: boolean;
}

export function registerBootstrap(program: Command): void {
  program
    .command('bootstrap')
    .description(
      'Create what is missing of an organisation, a workspace and a user with a role in it, then a new API token. ' +
        'Safe to run again, and while a server uses the same database. The token is shown once.',
    )
    .requiredOption('--org <slug>', 'organisation slug (used in the delivery URL)', parseSlug)
    .requiredOption('--workspace <slug>', 'workspace slug (used in the delivery URL)', parseSlug)
    .option('--email <email>', 'the user the token acts as (default owner@<org>.example.com)', parseEmail)
    .option('--role <role>', 'role of the user in the workspace: owner, admin, editor, viewer (default owner)', parseRole)
    .option('--database <url>', 'sqlite:<path> or postgres://… (env DATABASE_URL)')
    .option('--json', 'print one JSON line: {"org","workspace","workspaceId","userId","token"}')
    .option(
      '--password-stdin',
      "also set the user's admin application password, read from standard input (at least 8 characters)",
    )
    .action(async (options: BootstrapOptions) => {
      const password = options.passwordStdin ? await readNewPassword({ passwordStdin: true, allowEnv: false }) : null;
      // Before anything is written: a bad PASSWORD_HASH_COST stops the command with nothing done.
      const passwordHash = password === null ? null : await hashPassword(password, envPasswordHashCost());
      const store = await openStore(databaseUrl(options.database));
      try {
        const email = options.email ?? `owner@${options.org}.example.com`;
        const result = await bootstrapWorkspace(store, {
          org: options.org,
          workspace: options.workspace,
          email,
          role: options.role ?? null,
        });
        if (passwordHash !== null) await store.tenancy.setPasswordHash(email, passwordHash);
        if (options.json) {
          console.log(JSON.stringify(result));
        } else {
          console.log(`Organisation: ${result.org}\nWorkspace:    ${result.workspace} (id ${result.workspaceId})`);
          console.log(`User id:      ${result.userId}\nAPI token:    ${result.token}   (shown once: keep it)`);
        }
      } finally {
        await store.close();
      }
    });
}
