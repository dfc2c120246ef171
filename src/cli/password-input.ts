import { passwordProblem } from '../auth/passwords.js';

export const PASSWORD_ENV = 'CONTENT_SERVICE_PASSWORD';

/** All of standard input as text. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin as AsyncIterable<Buffer | string>)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The new password, from standard input (`--password-stdin`: everything up to the end, one final line break
 * dropped) or from CONTENT_SERVICE_PASSWORD. Never a flag's value, which would stay in the shell history and
 * be visible to other users in the process list. Throws when there is none or it is too short.
 */
export async function readNewPassword(options: { passwordStdin?: boolean; allowEnv: boolean }): Promise<string> {
  let password: string | undefined;
  if (options.passwordStdin) {
    password = (await readStdin()).replace(/\r?\n$/, '');
  } else if (options.allowEnv) {
    password = process.env[PASSWORD_ENV];
  }
  if (password === undefined) {
    throw new Error(
      `password: give it on standard input with --password-stdin ` +
        `(printf '%s' "$PASSWORD" | content-service user set-password --email … --password-stdin) ` +
        `or in the environment variable ${PASSWORD_ENV}`,
    );
  }
  const problem = passwordProblem(password);
  if (problem) throw new Error(problem);
  return password;
}
