import type { Command } from 'commander';
import { hashPassword } from '../auth/passwords.js';
import { openStore } from '../store/open-store.js';
import { databaseUrl, envPasswordHashCost, parseEmail } from './options.js';
import { PASSWORD_ENV, readNewPassword } from './password-input.js';

export function registerUser(program: Command): void {
  const user = program.command('user').description('Users of the admin application');

  user
    .command('set-password')
    .description(
      'Set the password a user signs in to the admin application with (at least 8 characters). The password is read ' +
        `from standard input with --password-stdin, otherwise from the environment variable ${PASSWORD_ENV}; it is ` +
        'never a flag value, so it stays out of the shell history. Stored as a scrypt hash. Signs the user out of ' +
        'every admin session. The user must exist (see bootstrap and token create).',
    )
    .requiredOption('--email <email>', 'the user', parseEmail)
    .option('--password-stdin', 'read the password from standard input (one final line break is dropped)')
    .option('--database <url>', 'sqlite:<path> or postgres://… (env DATABASE_URL)')
    .action(async (options: { email: string; passwordStdin?: boolean; database?: string }) => {
      const password = await readNewPassword({ passwordStdin: options.passwordStdin, allowEnv: true });
      const passwordHash = await hashPassword(password, envPasswordHashCost());
      const store = await openStore(databaseUrl(options.database));
      try {
        if (!(await store.tenancy.setPasswordHash(options.email, passwordHash))) {
          throw new Error(`No user with email "${options.email}": create one with content-service bootstrap or token create`);
        }
      } finally {
        await store.close();
      }
      console.log(`Password set for ${options.email}`);
    });
}
