// The real HTTP application (buildApp) on an in-memory SQLite store, in the test's own process, answering
// app.inject() requests: for rules that depend on the time, which the test sets through `clock`. Everything else
// is the same code the server runs; the black-box tests (test/http) run the real server process.
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { issueToken } from '../../src/services/issue-token.js';
import { hashPassword } from '../../src/auth/passwords.js';
import type { Clock } from '../../src/clock.js';
import { buildApp } from '../../src/server/app.js';
import { DEFAULTS } from '../../src/server/config.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';

export interface InProcessApp {
  app: FastifyInstance;
  store: Store;
  /** acme/main, with owner@acme.test as its owner and an owner token without expiry. */
  workspaceId: string;
  userId: string;
  ownerToken: string;
  /** Sets owner@acme.test's admin password. */
  setOwnerPassword(password: string): Promise<void>;
  /** An owner token of acme/main that expires at `expiresAt` (ms). */
  tokenExpiringAt(expiresAt: number): Promise<string>;
  close(): Promise<void>;
}

export async function startInProcessApp(clock: Clock): Promise<InProcessApp> {
  const store = await openStore('sqlite:');
  const { workspace, membership } = await store.tenancy.ensureMembership({
    orgSlug: 'acme',
    workspaceSlug: 'main',
    email: 'owner@acme.test',
    role: 'owner',
    defaultRole: 'owner',
  });
  const app = await buildApp({ store, config: DEFAULTS, logger: pino({ level: 'silent' }), clock });
  const tokenExpiringAt = async (expiresAt: number | null) =>
    (
      await issueToken(store, workspace.id, membership.userId, {
        expiresAt: expiresAt === null ? null : new Date(expiresAt).toISOString(),
      })
    ).token;
  return {
    app,
    store,
    workspaceId: workspace.id,
    userId: membership.userId,
    ownerToken: await tokenExpiringAt(null),
    async setOwnerPassword(password) {
      await store.tenancy.setPasswordHash('owner@acme.test', await hashPassword(password));
    },
    tokenExpiringAt,
    async close() {
      await app.close();
      await store.close();
    },
  };
}
