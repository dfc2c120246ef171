// One suite of the Store interface, run against every store: SQLite always (a temporary file), PostgreSQL when
// DATABASE_URL is set (each run in a fresh schema with a random name, dropped at the end). With CI=true an
// unreachable PostgreSQL fails the run instead of skipping it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { ServiceError } from '../../src/domain/errors.js';
import { parseFilter } from '../../src/domain/filter.js';
import type { ModelDefinition, RecordData } from '../../src/domain/fields.js';
import type { ModelShape } from '../../src/domain/model-definition.js';
import type { StoredRecord } from '../../src/domain/stored-record.js';
import { unparsedText } from '../../src/domain/json-text.js';
import { newId } from '../../src/ids.js';
import { openStore } from '../../src/store/open-store.js';
import { parsePostgresUrl } from '../../src/store/postgres/index.js';
import type { NewRecord, RecordLink, ReplacementData, Store, WriteContext } from '../../src/store/store.js';
import { postgresTarget, sqliteTarget, type Target } from '../support/databases.js';
import { ownedWorkspace } from '../support/workspaces.js';
import { field, modelShape as shape } from '../support/definitions.js';

const postgres = await postgresTarget();
if ('failure' in postgres) {
  test('PostgreSQL store contract (CI=true requires PostgreSQL)', () => {
    assert.fail(postgres.failure);
  });
}
const targets = [sqliteTarget(), ...('failure' in postgres ? [] : [postgres])];

// ---------------------------------------------------------------------------------------------------------------
// Fixtures

const PRODUCT = { enabled: true, skuField: 'code', priceField: null };
const FULL = { data: true, maxDataBytes: null };

function newRecord(data: RecordData, options: { sku?: string | null; links?: RecordLink[] } = {}): NewRecord {
  return { id: newId(), data, dataText: JSON.stringify(data), sku: options.sku ?? null, links: options.links ?? [] };
}

function replacement(data: RecordData, sku: string | null = null): ReplacementData {
  return { data, dataText: JSON.stringify(data), sku, links: [] };
}

/** The SKU field value as the record writer derives it: the `code` string of a product model. */
function product(data: RecordData, links: RecordLink[] = []): NewRecord {
  return newRecord(data, { sku: typeof data.code === 'string' ? data.code : null, links });
}

function isConflict(message: string) {
  return (error: unknown) => {
    assert.ok(error instanceof ServiceError, `expected a ServiceError, got ${String(error)}`);
    assert.equal(error.code, 'CONFLICT');
    assert.equal(error.message, message);
    return true;
  };
}

async function newWorkspace(store: Store): Promise<string> {
  return (await ownedWorkspace(store)).workspace.id;
}

async function newModel(store: Store, workspaceId: string, modelShape: ModelShape): Promise<WriteContext> {
  const model = await store.models.create(workspaceId, newId(), modelShape);
  return { model, userId: null };
}

async function countOf(store: Store, model: ModelDefinition): Promise<number> {
  return (await store.models.get(model.workspaceId, model.id))!.recordCount;
}

async function listIds(store: Store, model: ModelDefinition, sort: Parameters<Store['records']['list']>[1]['sort']) {
  return (await store.records.list(model.id, { limit: 100, offset: 0, sort })).map((record) => record.id);
}

// ---------------------------------------------------------------------------------------------------------------
// The contract

for (const target of targets) {
  describe(`Store contract on ${target.name}`, { skip: target.skip }, () => {
    let store: Store;

    before(async () => {
      store = await openStore(target.url('main'));
    });

    after(async () => {
      await store?.close();
      await target.cleanup();
    });

    test("records: a filter's count follows every write at once, this store's and another store's on the same database", async () => {
      const workspaceId = await newWorkspace(store);
      const context = await newModel(store, workspaceId, shape('paint', [field('colour', 'text', { indexed: true })]));
      const other = await newModel(store, workspaceId, shape('brush', [field('colour', 'text')]));
      const model = context.model;
      const red = parseFilter(model, { colour: 'red' })!;
      const count = () => store.records.count(model.id, red);
      const reds = [newRecord({ colour: 'red' }), newRecord({ colour: 'red' }), newRecord({ colour: 'blue' })];
      await store.records.insertMany(context, reds);
      assert.equal(await count(), 2);
      assert.equal(await count(), 2, 'asked again');
      await store.records.insert(context, newRecord({ colour: 'red' }));
      assert.equal(await count(), 3, 'after an insert');
      await store.records.modify(workspaceId, reds[0]!.id, null, () => replacement({ colour: 'blue' }));
      assert.equal(await count(), 2, 'after a patch');
      assert.equal(await store.records.delete(workspaceId, reds[1]!.id, false), 'deleted');
      assert.equal(await count(), 1, 'after a delete');
      // Writes of another model of the workspace leave the count as it is.
      await store.records.insert(other, newRecord({ colour: 'red' }));
      assert.equal(await count(), 1);
      // Another process writing (a second store on the same database: its own connections and its own counts).
      const second = await openStore(target.url('main'));
      try {
        assert.equal(await second.records.count(model.id, red), 1);
        await second.records.modify(workspaceId, reds[2]!.id, null, () => replacement({ colour: 'red' }));
        assert.equal(await count(), 2, "after another store's patch");
        await second.records.insertMany(context, [newRecord({ colour: 'red' })]);
        assert.equal(await count(), 3, "after another store's import");
        assert.equal(await second.records.count(model.id, red), 3);
      } finally {
        await second.close();
      }
      assert.equal(await store.records.count(model.id, parseFilter(model, { colour: 'blue' })!), 1, 'another filter');
    });

    test('ping answers while open', async () => {
      await store.ping();
    });

    test('tenancy: bootstrapping twice, also at the same time, finds the same workspace and user', async () => {
      const input = {
        orgSlug: `org-${randomBytes(4).toString('hex')}`,
        workspaceSlug: 'main',
        email: 'first@example.com',
        role: null,
        defaultRole: 'owner' as const,
      };
      const [a, b] = await Promise.all([store.tenancy.ensureMembership(input), store.tenancy.ensureMembership(input)]);
      assert.deepEqual(a, b);
      assert.equal(a.membership.role, 'owner');
      assert.deepEqual(a.workspace, {
        id: a.workspace.id,
        slug: 'main',
        orgId: a.workspace.orgId,
        orgSlug: input.orgSlug,
        writeBudget: null,
        defaultLocale: 'en',
      });
      const again = await store.tenancy.ensureMembership(input);
      assert.deepEqual(again, a);

      const promoted = await store.tenancy.ensureMembership({ ...input, role: 'editor' });
      assert.equal(promoted.membership.role, 'editor');
      const kept = await store.tenancy.ensureMembership(input);
      assert.equal(kept.membership.role, 'editor', 'a null role keeps the current one');
      assert.equal(kept.membership.userId, a.membership.userId);

      assert.equal(await store.tenancy.hasAnyOrganisation(), true);
      const listed = await store.tenancy.listWorkspaceSlugs(10_000);
      assert.ok(
        listed.some(({ org, workspace }) => org === input.orgSlug && workspace === 'main'),
        JSON.stringify(listed),
      );
      assert.equal((await store.tenancy.listWorkspaceSlugs(1)).length, 1);
      assert.deepEqual(await store.tenancy.findWorkspace(a.workspace.id), a.workspace);
      assert.deepEqual(await store.tenancy.findWorkspaceBySlugs(input.orgSlug, 'main'), a.workspace);
      assert.equal(await store.tenancy.findWorkspace('no-such-workspace'), null);
      assert.equal(await store.tenancy.findWorkspaceBySlugs(input.orgSlug, 'other'), null);
    });

    test('tenancy: ensureMemberOf and write budgets', async () => {
      const workspaceId = await newWorkspace(store);
      const member = await store.tenancy.ensureMemberOf(workspaceId, 'second@example.com', null, 'editor');
      assert.equal(member?.role, 'editor');
      assert.equal((await store.tenancy.ensureMemberOf(workspaceId, 'second@example.com', 'viewer', 'editor'))?.role, 'viewer');
      assert.equal(await store.tenancy.ensureMemberOf('no-such-workspace', 'x@example.com', null, 'editor'), null);

      assert.equal(await store.tenancy.setWriteBudget(workspaceId, 7), true);
      assert.equal((await store.tenancy.findWorkspace(workspaceId))?.writeBudget, 7);
      assert.equal(await store.tenancy.setWriteBudget(workspaceId, null), true);
      assert.equal((await store.tenancy.findWorkspace(workspaceId))?.writeBudget, null);
      assert.equal(await store.tenancy.setWriteBudget('no-such-workspace', 1), false);
    });

    test('tenancy: a workspace default locale is en until set', async () => {
      const workspaceId = await newWorkspace(store);
      assert.equal((await store.tenancy.findWorkspace(workspaceId))?.defaultLocale, 'en');
      assert.equal(await store.tenancy.setDefaultLocale(workspaceId, 'pt-BR'), true);
      assert.equal((await store.tenancy.findWorkspace(workspaceId))?.defaultLocale, 'pt-BR');
      assert.equal(await store.tenancy.setDefaultLocale('no-such-workspace', 'de'), false);
    });

    test('tokens: found by hash with the member role, revoked once', async () => {
      const { workspace, membership } = await store.tenancy.ensureMembership({
        orgSlug: `org-${randomBytes(4).toString('hex')}`,
        workspaceSlug: 'main',
        email: 'token@example.com',
        role: 'admin',
        defaultRole: 'owner',
      });
      const id = newId();
      const hash = randomBytes(16).toString('hex');
      const expiresAt = '2100-01-02T03:04:05.678Z';
      await store.tenancy.createToken({ id, hash, workspaceId: workspace.id, userId: membership.userId, name: 'ci', expiresAt });
      assert.deepEqual(await store.tenancy.findTokenByHash(hash), {
        id,
        workspaceId: workspace.id,
        userId: membership.userId,
        role: 'admin',
        expiresAt,
        revokedAt: null,
        lastUsedAt: null,
        writeBudget: null,
      });
      assert.equal(await store.tenancy.findTokenByHash('unknown'), null);

      // Last use: written once, then not again until the interval has passed.
      const usedAt = Date.UTC(2026, 10, 25, 12, 0, 0);
      await store.tenancy.markTokenUsed(id, usedAt, 60_000);
      assert.equal((await store.tenancy.findTokenByHash(hash))?.lastUsedAt, usedAt);
      await store.tenancy.markTokenUsed(id, usedAt + 30_000, 60_000);
      assert.equal((await store.tenancy.findTokenByHash(hash))?.lastUsedAt, usedAt, 'within the interval: kept');
      await store.tenancy.markTokenUsed(id, usedAt + 60_000, 60_000);
      assert.equal((await store.tenancy.findTokenByHash(hash))?.lastUsedAt, usedAt + 60_000);
      assert.equal(
        (await store.tenancy.findWorkspaceToken(workspace.id, id))?.lastUsedAt,
        new Date(usedAt + 60_000).toISOString(),
      );

      assert.equal(await store.tenancy.revokeToken(id), true);
      assert.equal(await store.tenancy.revokeToken(id), false, 'a revoked token cannot be revoked again');
      const revoked = await store.tenancy.findTokenByHash(hash);
      assert.match(revoked?.revokedAt ?? '', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      assert.equal(await store.tenancy.revokeToken('no-such-token'), false);

      const noExpiry = newId();
      const otherHash = randomBytes(16).toString('hex');
      await store.tenancy.createToken({
        id: noExpiry,
        hash: otherHash,
        workspaceId: workspace.id,
        userId: membership.userId,
        name: null,
        expiresAt: null,
      });
      assert.equal((await store.tenancy.findTokenByHash(otherHash))?.expiresAt, null);
    });

    test('tokens: listed per workspace newest first, with user and role, never the hash; revoked in their workspace only', async () => {
      const orgSlug = `org-${randomBytes(4).toString('hex')}`;
      const main = await store.tenancy.ensureMembership({
        orgSlug,
        workspaceSlug: 'main',
        email: `owner-${orgSlug}@example.com`,
        role: 'owner',
        defaultRole: 'owner',
      });
      const other = await store.tenancy.ensureMembership({
        orgSlug,
        workspaceSlug: 'other',
        email: `owner-${orgSlug}@example.com`,
        role: 'owner',
        defaultRole: 'owner',
      });
      const editor = await store.tenancy.ensureMemberOf(main.workspace.id, `editor-${orgSlug}@example.com`, 'editor', 'editor');
      assert.ok(editor);
      const make = async (workspaceId: string, userId: string, name: string | null, expiresAt: string | null = null) => {
        const id = newId();
        await store.tenancy.createToken({ id, hash: randomBytes(16).toString('hex'), workspaceId, userId, name, expiresAt });
        await sleep(2); // distinct creation times
        return id;
      };
      const first = await make(main.workspace.id, main.membership.userId, 'first');
      const second = await make(main.workspace.id, editor.userId, null, '2100-01-01T00:00:00.000Z');
      const elsewhere = await make(other.workspace.id, main.membership.userId, 'other workspace');

      const listed = await store.tenancy.listTokens(main.workspace.id);
      assert.deepEqual(
        listed.map((token) => token.id),
        [second, first],
        'newest first, this workspace only',
      );
      assert.deepEqual(Object.keys(listed[0]!).sort(), [
        'createdAt',
        'expiresAt',
        'id',
        'lastUsedAt',
        'name',
        'revokedAt',
        'role',
        'userEmail',
        'userId',
      ]);
      assert.deepEqual(
        { ...listed[0]!, createdAt: 'x' },
        {
          id: second,
          name: null,
          userId: editor.userId,
          userEmail: `editor-${orgSlug}@example.com`,
          role: 'editor',
          createdAt: 'x',
          expiresAt: '2100-01-01T00:00:00.000Z',
          revokedAt: null,
          lastUsedAt: null,
        },
      );
      assert.match(listed[0]!.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      assert.deepEqual(await store.tenancy.findWorkspaceToken(main.workspace.id, first), listed[1]);
      assert.equal(await store.tenancy.findWorkspaceToken(main.workspace.id, elsewhere), null, 'a token of another workspace');

      assert.equal(
        await store.tenancy.revokeWorkspaceToken(main.workspace.id, elsewhere),
        false,
        'not a token of this workspace',
      );
      assert.equal((await store.tenancy.findWorkspaceToken(other.workspace.id, elsewhere))?.revokedAt, null);
      assert.equal(await store.tenancy.revokeWorkspaceToken(main.workspace.id, first), true);
      const revokedAt = (await store.tenancy.findWorkspaceToken(main.workspace.id, first))?.revokedAt;
      assert.ok(revokedAt);
      await sleep(5);
      assert.equal(await store.tenancy.revokeWorkspaceToken(main.workspace.id, first), true, 'revoking again is fine');
      assert.equal(
        (await store.tenancy.findWorkspaceToken(main.workspace.id, first))?.revokedAt,
        revokedAt,
        'and keeps the first time',
      );
      assert.equal(await store.tenancy.revokeWorkspaceToken(main.workspace.id, 'no-such-token'), false);
      assert.deepEqual(await store.tenancy.listTokens('no-such-workspace'), []);
    });

    test('users: password hash by email, workspaces of a user, member access', async () => {
      const orgSlug = `org-${randomBytes(4).toString('hex')}`;
      const email = `user-${orgSlug}@example.com`;
      const b = await store.tenancy.ensureMembership({
        orgSlug,
        workspaceSlug: 'b-shop',
        email,
        role: 'viewer',
        defaultRole: 'owner',
      });
      const a = await store.tenancy.ensureMembership({
        orgSlug,
        workspaceSlug: 'a-main',
        email,
        role: 'admin',
        defaultRole: 'owner',
      });
      await store.tenancy.setWriteBudget(b.workspace.id, 42);
      const userId = a.membership.userId;

      assert.deepEqual(await store.tenancy.findUserByEmail(email), { id: userId, email, passwordHash: null });
      assert.equal(await store.tenancy.findUserByEmail('nobody@example.com'), null);
      assert.equal(await store.tenancy.setPasswordHash(email, '$scrypt$ln=15,r=8,p=3$c2FsdA$aGFzaA'), true);
      assert.equal((await store.tenancy.findUserByEmail(email))?.passwordHash, '$scrypt$ln=15,r=8,p=3$c2FsdA$aGFzaA');
      assert.equal(await store.tenancy.setPasswordHash('nobody@example.com', 'x'), false);

      assert.deepEqual(await store.tenancy.workspacesOf(userId), [
        { id: a.workspace.id, orgSlug, slug: 'a-main', role: 'admin' },
        { id: b.workspace.id, orgSlug, slug: 'b-shop', role: 'viewer' },
      ]);
      assert.deepEqual(await store.tenancy.workspacesOf('no-such-user'), []);
      assert.deepEqual(await store.tenancy.findMember(a.workspace.id, userId), { role: 'admin', writeBudget: null });
      assert.deepEqual(await store.tenancy.findMember(b.workspace.id, userId), { role: 'viewer', writeBudget: 42 });
      assert.equal(await store.tenancy.findMember('no-such-workspace', userId), null);
      assert.equal(await store.tenancy.findMember(a.workspace.id, 'no-such-user'), null);
    });

    test('members: listed by email; added (user created without a password) once; other workspaces counted', async () => {
      const workspaceId = await newWorkspace(store);
      const now = Date.now();
      const added = await store.members.add(workspaceId, 'b-new@example.com', 'editor', now);
      assert.notEqual(added, 'already-member');
      if (added === 'already-member') return;
      assert.deepEqual(added.member, {
        userId: added.member.userId,
        email: 'b-new@example.com',
        role: 'editor',
        hasPassword: false,
        addedAt: new Date(now).toISOString(),
      });
      assert.equal(added.otherWorkspaces, 0);
      assert.equal(await store.members.add(workspaceId, 'b-new@example.com', 'viewer', now), 'already-member');
      const listed = await store.members.list(workspaceId);
      assert.deepEqual(
        listed.map((m) => [m.email, m.role, m.hasPassword]),
        [
          ['b-new@example.com', 'editor', false],
          ['owner@example.com', 'owner', false],
        ],
      );
      // The owner of newWorkspace is a member of every workspace it made: added to this one, it counts the others.
      const elsewhere = await newWorkspace(store);
      const again = await store.members.add(elsewhere, 'b-new@example.com', 'viewer', now);
      assert.ok(again !== 'already-member' && again.otherWorkspaces === 1);
      assert.deepEqual(await store.members.list('no-such-workspace'), []);
    });

    test('members: change runs the check with the role and the owner count; a throwing check changes nothing', async () => {
      const workspaceId = await newWorkspace(store);
      const added = await store.members.add(workspaceId, 'second@example.com', 'owner', Date.now());
      assert.ok(added !== 'already-member');
      const userId = added.member.userId;
      const seen: [string, number][] = [];
      const changed = await store.members.change(
        workspaceId,
        userId,
        { role: 'admin' },
        (role, owners) => seen.push([role, owners]),
        1,
      );
      assert.deepEqual(seen, [['owner', 2]]);
      assert.ok(changed !== null && changed !== 'removed' && changed.role === 'admin');
      await assert.rejects(
        store.members.change(
          workspaceId,
          userId,
          'remove',
          () => {
            throw new ServiceError('CONFLICT', 'refused');
          },
          1,
        ),
        isConflict('refused'),
      );
      assert.equal((await store.members.list(workspaceId)).find((m) => m.userId === userId)?.role, 'admin');
      assert.equal(await store.members.change(workspaceId, 'no-such-user', 'remove', () => {}, 1), null);
    });

    test("members: removal revokes the user's tokens of that workspace only and voids the sign-in links there", async () => {
      const workspaceId = await newWorkspace(store);
      const elsewhere = await newWorkspace(store);
      const email = `leaver-${randomBytes(4).toString('hex')}@example.com`;
      const here = await store.tenancy.ensureMemberOf(workspaceId, email, 'editor', 'viewer');
      await store.tenancy.ensureMemberOf(elsewhere, email, 'editor', 'viewer');
      const userId = here!.userId;
      const token = (hash: string, ws: string) =>
        store.tenancy.createToken({ id: newId(), hash, workspaceId: ws, userId, name: null, expiresAt: null });
      await token(`here-${userId}`, workspaceId);
      await token(`there-${userId}`, elsewhere);
      const now = Date.now();
      await store.members.createSignInLink({
        tokenHash: `link-${userId}`,
        workspaceId,
        userId,
        createdBy: 'someone',
        createdAt: now,
        expiresAt: now + 60_000,
      });
      assert.equal(await store.members.change(workspaceId, userId, 'remove', () => {}, now), 'removed');
      const hereToken = await store.tenancy.findTokenByHash(`here-${userId}`);
      assert.equal(hereToken?.role, null, 'no member any more');
      assert.equal(hereToken?.revokedAt, new Date(now).toISOString());
      const thereToken = await store.tenancy.findTokenByHash(`there-${userId}`);
      assert.deepEqual([thereToken?.role, thereToken?.revokedAt], ['editor', null]);
      assert.equal(await store.members.findSignInLink(`link-${userId}`, now), null);
    });

    test('members: a sign-in link is usable once, before it expires, by a passwordless member of its workspace only', async () => {
      const workspaceId = await newWorkspace(store);
      const now = Date.now();
      const add = async (email: string) => {
        const added = await store.members.add(workspaceId, email, 'viewer', now);
        assert.ok(added !== 'already-member');
        return added.member.userId;
      };
      const link = (tokenHash: string, userId: string, expiresAt = now + 60_000) =>
        store.members.createSignInLink({ tokenHash, workspaceId, userId, createdBy: 'admin', createdAt: now, expiresAt });
      const tag = randomBytes(4).toString('hex');
      const userId = await add(`linked-${tag}@example.com`);
      await link(`first-${tag}`, userId);
      await link(`second-${tag}`, userId);
      assert.equal(await store.members.findSignInLink(`first-${tag}`, now), null, 'replaced by the newer link');
      assert.deepEqual(await store.members.findSignInLink(`second-${tag}`, now), { email: `linked-${tag}@example.com` });
      assert.equal(await store.members.findSignInLink(`second-${tag}`, now + 60_000), null, 'expired');
      assert.equal(await store.members.useSignInLink(`second-${tag}`, 'hash', now + 60_000), null);
      const results = await Promise.all([
        store.members.useSignInLink(`second-${tag}`, 'hash-a', now),
        store.members.useSignInLink(`second-${tag}`, 'hash-b', now),
      ]);
      assert.equal(results.filter((r) => r !== null).length, 1, 'used once, also when used twice at the same time');
      assert.deepEqual(
        results.find((r) => r !== null),
        { userId, email: `linked-${tag}@example.com` },
      );
      assert.ok(['hash-a', 'hash-b'].includes((await store.tenancy.findUserByEmail(`linked-${tag}@example.com`))!.passwordHash!));
      assert.equal(await store.members.findSignInLink(`second-${tag}`, now), null);

      const traveller = await add(`traveller-${tag}@example.com`);
      await link(`travel-${tag}`, traveller);
      await store.tenancy.ensureMemberOf(await newWorkspace(store), `traveller-${tag}@example.com`, 'viewer', 'viewer');
      assert.equal(await store.members.useSignInLink(`travel-${tag}`, 'hash', now), null, 'a member of another workspace');

      const hasPassword = await add(`haspw-${tag}@example.com`);
      await link(`pw-${tag}`, hasPassword);
      await store.tenancy.setPasswordHash(`haspw-${tag}@example.com`, 'set elsewhere');
      assert.equal(await store.members.useSignInLink(`pw-${tag}`, 'hash', now), null, 'a user who has a password');
      assert.equal((await store.tenancy.findUserByEmail(`haspw-${tag}@example.com`))!.passwordHash, 'set elsewhere');
    });

    test('sessions: created, found with the email, touched, deleted; expired ones swept; a new password ends them', async () => {
      const orgSlug = `org-${randomBytes(4).toString('hex')}`;
      const email = `session-${orgSlug}@example.com`;
      const { membership } = await store.tenancy.ensureMembership({
        orgSlug,
        workspaceSlug: 'main',
        email,
        role: 'owner',
        defaultRole: 'owner',
      });
      const userId = membership.userId;
      const now = Date.now();
      const live = {
        idHash: randomBytes(32).toString('hex'),
        userId,
        csrfToken: 'csrf-live',
        createdAt: now,
        expiresAt: now + 60_000,
      };
      const expired = {
        idHash: randomBytes(32).toString('hex'),
        userId,
        csrfToken: 'csrf-old',
        createdAt: now - 120_000,
        expiresAt: now - 1,
      };
      await store.tenancy.createSession(live);
      await store.tenancy.createSession(expired);

      assert.deepEqual(await store.tenancy.findSession(live.idHash), { ...live, email, lastSeen: now });
      assert.equal(await store.tenancy.findSession('unknown'), null);
      await store.tenancy.touchSession(live.idHash, now + 5000, now + 90_000);
      assert.deepEqual(await store.tenancy.findSession(live.idHash), {
        ...live,
        email,
        lastSeen: now + 5000,
        expiresAt: now + 90_000,
      });

      assert.equal(
        (await store.tenancy.findSession(expired.idHash))?.expiresAt,
        now - 1,
        'found even when expired: the caller decides',
      );
      assert.ok((await store.tenancy.deleteExpiredSessions(now)) >= 1);
      assert.equal(await store.tenancy.findSession(expired.idHash), null);
      assert.ok(await store.tenancy.findSession(live.idHash), 'a live session is kept');

      assert.equal(await store.tenancy.deleteSession(live.idHash), true);
      assert.equal(await store.tenancy.deleteSession(live.idHash), false);
      assert.equal(await store.tenancy.findSession(live.idHash), null);

      const other = { ...live, idHash: randomBytes(32).toString('hex') };
      await store.tenancy.createSession(other);
      assert.equal(await store.tenancy.setPasswordHash(email, 'new-hash'), true);
      assert.equal(await store.tenancy.findSession(other.idHash), null, 'setting a password signs the user out everywhere');
    });

    test('models: create, get, getBySlug, list; a used slug is CONFLICT', async () => {
      const workspaceId = await newWorkspace(store);
      const fields = [
        field('title', 'text', { required: true }),
        field('details', 'object', { fields: [field('size', 'text'), field('weight', 'number')] }),
      ];
      const created = await store.models.create(
        workspaceId,
        newId(),
        shape('items', fields, {
          description: 'All items',
          icon: '🛒',
          color: '#1e90ff',
          deliveryAccess: 'public',
          product: { ...PRODUCT, enabled: false },
        }),
      );
      assert.deepEqual(created, {
        id: created.id,
        workspaceId,
        name: 'items',
        slug: 'items',
        description: 'All items',
        icon: '🛒',
        color: '#1e90ff',
        displayField: 'title',
        fields,
        product: { ...PRODUCT, enabled: false },
        deliveryAccess: 'public',
        drafts: false,
        recordCount: 0,
        publishedCount: 0,
        writeVersion: 0,
        hasLargeRecords: false,
        createdAt: created.createdAt,
        updatedAt: created.createdAt,
      });
      assert.equal(JSON.stringify(created.fields), JSON.stringify(fields), 'field definitions keep their key order');
      assert.deepEqual(await store.models.get(workspaceId, created.id), created);
      assert.deepEqual(await store.models.getBySlug(workspaceId, 'items'), created);
      assert.equal(await store.models.get(await newWorkspace(store), created.id), null, 'models belong to a workspace');

      await assert.rejects(
        store.models.create(workspaceId, newId(), shape('items', [field('name', 'text')])),
        isConflict('slug: A model with this slug already exists'),
      );
      const second = await store.models.create(workspaceId, newId(), shape('others', [field('name', 'text')]));
      assert.deepEqual(
        (await store.models.list(workspaceId)).map((model) => model.slug),
        ['items', 'others'],
      );
      assert.equal(await store.models.delete(workspaceId, second.id), true);
      assert.equal(await store.models.delete(workspaceId, second.id), false);
      assert.equal(await store.models.getBySlug(workspaceId, 'others'), null);
    });

    test('records: insert then get, scoped to the workspace', async () => {
      const workspaceId = await newWorkspace(store);
      const context = { ...(await newModel(store, workspaceId, shape('notes', [field('text', 'text')]))), userId: 'user-1' };
      const data = { text: 'Zażółć gęślą jaźń "quoted" \\ back', nested: { b: 1, a: [1.5, true, null, 'x'] } };
      const record = newRecord(data);
      const stored = await store.records.insert(context, record);
      assert.deepEqual(stored, {
        id: record.id,
        modelId: context.model.id,
        workspaceId,
        data,
        createdAt: stored.createdAt,
        updatedAt: stored.createdAt,
        createdBy: 'user-1',
        updatedBy: 'user-1',
        revision: 1,
        publishStatus: null,
        publishedRevision: null,
        publishedAt: null,
      });
      assert.match(stored.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      assert.deepEqual(await store.records.get(workspaceId, record.id), stored);
      assert.equal(await store.records.get(await newWorkspace(store), record.id), null);
      assert.equal(await store.records.get(workspaceId, newId()), null);
    });

    test('records: a page that continues after a cursor equals the page at that offset, in every sort', async () => {
      const workspaceId = await newWorkspace(store);
      const context = await newModel(store, workspaceId, shape('cursor', [field('n', 'number')]));
      await store.records.insertMany(
        context,
        Array.from({ length: 5 }, (_, n) => newRecord({ n })),
      );
      await sleep(3);
      await store.records.insertMany(
        context,
        Array.from({ length: 6 }, (_, n) => newRecord({ n: n + 5 })),
      );
      for (const sort of ['createdAt_asc', 'createdAt_desc', 'updatedAt_asc', 'updatedAt_desc'] as const) {
        const all = await store.records.list(context.model.id, { limit: 100, offset: 0, sort });
        for (let offset = 1; offset < all.length; offset++) {
          const last = all[offset - 1]!;
          const time = Date.parse(sort.startsWith('createdAt') ? last.createdAt : last.updatedAt);
          const after = await store.records.list(context.model.id, { limit: 3, offset, sort }, { time, id: last.id });
          assert.deepEqual(
            after.map((record) => record.id),
            all.slice(offset, offset + 3).map((record) => record.id),
            `${sort} after position ${offset}`,
          );
        }
      }
    });

    test('records: listing is creation order, ties broken by id, in every sort; pages never overlap', async () => {
      const workspaceId = await newWorkspace(store);
      const context = await newModel(store, workspaceId, shape('list', [field('n', 'number')]));
      const batch = Array.from({ length: 7 }, (_, n) => newRecord({ n }));
      await store.records.insertMany(context, batch);
      const batchRecords = await Promise.all(batch.map((record) => store.records.get(workspaceId, record.id)));
      assert.equal(new Set(batchRecords.map((record) => record!.createdAt)).size, 1, 'one import shares one createdAt');
      await sleep(3);
      const single = [newRecord({ n: 7 }), newRecord({ n: 8 })];
      for (const record of single) await store.records.insert(context, record);
      const creationOrder = [...batch, ...single].map((record) => record.id);

      assert.deepEqual(await listIds(store, context.model, 'createdAt_asc'), creationOrder);
      assert.deepEqual(await listIds(store, context.model, 'createdAt_desc'), [...creationOrder].reverse());

      const pages: string[] = [];
      for (let offset = 0; offset < 12; offset += 4) {
        const page = await store.records.list(context.model.id, { limit: 4, offset, sort: 'createdAt_asc' });
        pages.push(...page.map((record) => record.id));
      }
      assert.deepEqual(pages, creationOrder);
      assert.deepEqual(await store.records.list(context.model.id, { limit: 5, offset: 9, sort: 'createdAt_asc' }), []);

      await sleep(3);
      const touched = batch[2]!.id;
      const modified = await store.records.modify(workspaceId, touched, 'editor-1', (current) =>
        replacement({ ...current.data, n: 20 }),
      );
      assert.ok(modified && modified.updatedAt > modified.createdAt);
      assert.equal(modified.updatedBy, 'editor-1');
      const untouched = creationOrder.filter((id) => id !== touched);
      assert.deepEqual(await listIds(store, context.model, 'updatedAt_asc'), [...untouched, touched]);
      assert.deepEqual(await listIds(store, context.model, 'updatedAt_desc'), [touched, ...[...untouched].reverse()]);
      assert.deepEqual(await listIds(store, context.model, 'createdAt_asc'), creationOrder, 'modify keeps creation order');
    });

    test('records: a page read without data carries none; a large record marks its model; a bounded page over its bound is refused', async () => {
      const workspaceId = await newWorkspace(store);
      const context = await newModel(store, workspaceId, shape('sized', [field('text', 'text')]));
      const small = Array.from({ length: 3 }, (_, n) => newRecord({ text: `small ${n}` }));
      await store.records.insertMany(context, small);
      const bare = await store.records.list(context.model.id, { limit: 10, offset: 0, sort: 'createdAt_asc' }, undefined, {
        data: false,
        maxDataBytes: null,
      });
      assert.deepEqual(
        bare.map((record) => [record.id, record.data]),
        small.map((record) => [record.id, {}]),
      );
      assert.equal((await store.models.get(workspaceId, context.model.id))!.hasLargeRecords, false);

      const large = newRecord({ text: 'L'.repeat(20_000) });
      await store.records.insert(context, large);
      const marked = (await store.models.get(workspaceId, context.model.id))!;
      assert.equal(marked.hasLargeRecords, true);

      const window = { limit: 10, offset: 0, sort: 'createdAt_asc' } as const;
      const bounded = { data: true, maxDataBytes: 20_100 };
      await assert.rejects(
        store.records.list(marked.id, window, undefined, { data: true, maxDataBytes: 20_000 }),
        (error: unknown) => {
          assert.ok(error instanceof ServiceError);
          assert.equal(error.code, 'PAYLOAD_TOO_LARGE');
          assert.equal(error.extensions.fitting, 3);
          return true;
        },
      );
      const page = await store.records.list(marked.id, window, undefined, bounded);
      assert.deepEqual(
        page.map((record) => record.data.text),
        ['small 0', 'small 1', 'small 2', 'L'.repeat(20_000)],
      );
      // A modify that makes a record large marks its model too.
      const other = await newModel(store, workspaceId, shape('sized-later', [field('text', 'text')]));
      const record = await store.records.insert(other, newRecord({ text: 'short' }));
      await store.records.modify(workspaceId, record.id, null, () => replacement({ text: 'M'.repeat(20_000) }));
      assert.equal((await store.models.get(workspaceId, other.model.id))!.hasLargeRecords, true);
    });

    test('records: listWithModel reads the model (by id or slug) and the same page as list, in every sort', async () => {
      const workspaceId = await newWorkspace(store);
      const context = await newModel(store, workspaceId, shape('paired', [field('n', 'number'), field('tags', 'object')]));
      await store.records.insertMany(
        context,
        Array.from({ length: 4 }, (_, n) => newRecord({ n, tags: { nested: [n, 'a, b: "c"', null, 1.5e300] } })),
      );
      await sleep(3);
      await store.records.insert(context, newRecord({ n: 4, tags: { text: 'ünïcödé \u2028' } }));
      const model = (await store.models.get(workspaceId, context.model.id))!;
      for (const sort of ['createdAt_asc', 'createdAt_desc', 'updatedAt_asc', 'updatedAt_desc'] as const) {
        for (const [limit, offset] of [
          [100, 0],
          [2, 0],
          [2, 3],
          [3, 5],
          [0, 0],
        ] as const) {
          const window = { limit, offset, sort };
          const expected = await store.records.list(model.id, window);
          for (const key of [{ id: model.id }, { slug: 'paired' }]) {
            const found = await store.records.listWithModel(workspaceId, key, window, { data: true, maxDataBytes: null });
            assert.deepEqual(found?.model, model, `${sort} ${limit}@${offset} ${JSON.stringify(key)}`);
            assert.deepEqual(found.items, expected, `${sort} ${limit}@${offset} ${JSON.stringify(key)}`);
            assert.deepEqual(JSON.parse(JSON.stringify(found.items)), JSON.parse(JSON.stringify(expected)));
          }
        }
      }
      const bare = await store.records.listWithModel(
        workspaceId,
        { id: model.id },
        { limit: 2, offset: 0, sort: 'createdAt_asc' },
        { data: false, maxDataBytes: null },
      );
      assert.deepEqual(
        bare?.items.map((record) => record.data),
        [{}, {}],
      );

      const empty = await newModel(store, workspaceId, shape('empty', [field('n', 'number')]));
      const window = { limit: 10, offset: 0, sort: 'createdAt_asc' } as const;
      assert.deepEqual(await store.records.listWithModel(workspaceId, { slug: 'empty' }, window, FULL), {
        model: empty.model,
        items: [],
      });
      const elsewhere = await newWorkspace(store);
      assert.equal(await store.records.listWithModel(elsewhere, { id: model.id }, window, FULL), null);
      assert.equal(await store.records.listWithModel(elsewhere, { slug: 'paired' }, window, FULL), null);
      assert.equal(await store.records.listWithModel(workspaceId, { id: newId() }, window, FULL), null);
      assert.equal(await store.records.listWithModel(workspaceId, { slug: 'nothing' }, window, FULL), null);
    });

    test('records: listWithModel bounds the page only of a model that holds large records', async () => {
      const workspaceId = await newWorkspace(store);
      const context = await newModel(store, workspaceId, shape('bounded', [field('text', 'text')]));
      await store.records.insertMany(
        context,
        Array.from({ length: 3 }, (_, n) => newRecord({ text: `small ${n}` })),
      );
      const window = { limit: 10, offset: 0, sort: 'createdAt_asc' } as const;
      const tiny = { data: true, maxDataBytes: 10 };
      const small = await store.records.listWithModel(workspaceId, { id: context.model.id }, window, tiny);
      assert.deepEqual(
        small?.items.map((record) => record.data.text),
        ['small 0', 'small 1', 'small 2'],
        'no large records: no bound',
      );

      await store.records.insert(context, newRecord({ text: 'L'.repeat(20_000) }));
      for (const key of [{ id: context.model.id }, { slug: 'bounded' }]) {
        await assert.rejects(
          store.records.listWithModel(workspaceId, key, window, { data: true, maxDataBytes: 20_000 }),
          (error: unknown) => {
            assert.ok(error instanceof ServiceError);
            assert.equal(error.code, 'PAYLOAD_TOO_LARGE');
            assert.equal(error.extensions.fitting, 3);
            return true;
          },
        );
        const page = await store.records.listWithModel(workspaceId, key, window, { data: true, maxDataBytes: 20_100 });
        assert.equal(page?.model.hasLargeRecords, true);
        assert.deepEqual(
          page.items.map((record) => record.data.text),
          ['small 0', 'small 1', 'small 2', 'L'.repeat(20_000)],
        );
        const unbounded = await store.records.listWithModel(workspaceId, key, window, FULL);
        assert.equal(unbounded?.items.length, 4);
        const bare = await store.records.listWithModel(workspaceId, key, window, { data: false, maxDataBytes: 10 });
        assert.equal(bare?.items.length, 4, 'a page without data is not measured');
      }
    });

    test('records: writes into a model deleted after the checks are NOT_FOUND, store nothing, and leave the foreign key on', async () => {
      const workspaceId = await newWorkspace(store);
      const context = await newModel(store, workspaceId, shape('gone', [field('n', 'number')]));
      assert.equal(await store.models.delete(workspaceId, context.model.id), true);
      const batch = [newRecord({ n: 1 }), newRecord({ n: 2 })];
      const refusal = await store.records.insertMany(context, batch).then(
        () => null,
        (error: unknown) => error,
      );
      assert.ok(refusal instanceof ServiceError, `expected a ServiceError, got ${String(refusal)}`);
      assert.deepEqual([refusal.code, refusal.message], ['NOT_FOUND', 'modelId: model not found']);
      for (const record of batch) assert.equal(await store.records.get(workspaceId, record.id), null);
      // An empty batch writes nothing and checks nothing, as before.
      assert.deepEqual(await store.records.insertMany(context, []), { skippedForSku: [] });
      // The single insert after it is still refused by the foreign key.
      const single = await store.records.insert(context, newRecord({ n: 3 })).then(
        () => null,
        (error: unknown) => error,
      );
      assert.ok(single instanceof ServiceError, `expected a ServiceError, got ${String(single)}`);
      assert.equal(single.code, 'NOT_FOUND');
    });

    test('records: record_count follows insert, insertMany and delete', async () => {
      const workspaceId = await newWorkspace(store);
      const context = await newModel(store, workspaceId, shape('counted', [field('code', 'text')], { product: PRODUCT }));
      assert.equal(await countOf(store, context.model), 0);
      const first = await store.records.insert(context, product({ code: 'A' }));
      assert.equal(await countOf(store, context.model), 1);
      await store.records.insertMany(context, [product({ code: 'B' }), product({ code: 'A' }), product({ code: 'C' })]);
      assert.equal(await countOf(store, context.model), 3, 'skipped rows are not counted');
      await store.records.insertMany(context, []);
      assert.equal(await countOf(store, context.model), 3);
      assert.equal(await store.records.delete(workspaceId, first.id, false), 'deleted');
      assert.equal(await countOf(store, context.model), 2);
      assert.equal(await store.records.delete(workspaceId, first.id, false), 'not-found');
      assert.equal(await countOf(store, context.model), 2);
    });

    test('records: insert with a stored SKU is CONFLICT naming the SKU field, nothing written', async () => {
      const workspaceId = await newWorkspace(store);
      const context = await newModel(store, workspaceId, shape('skus', [field('code', 'text')], { product: PRODUCT }));
      await store.records.insert(context, product({ code: 'SKU-1' }));
      const duplicate = product({ code: 'SKU-1' });
      await assert.rejects(store.records.insert(context, duplicate), isConflict('code: A record with this SKU already exists'));
      assert.equal(await store.records.get(workspaceId, duplicate.id), null);
      assert.equal(await countOf(store, context.model), 1);
      // No SKU: never a conflict.
      await store.records.insert(context, product({}));
      await store.records.insert(context, product({}));
      assert.equal(await countOf(store, context.model), 3);
    });

    test('records: insertMany skips rows whose SKU is stored or earlier in the batch, indexes in input order', async () => {
      const workspaceId = await newWorkspace(store);
      const context = await newModel(
        store,
        workspaceId,
        shape('batch', [field('code', 'text'), field('parent', 'relation', { relationTo: 'model:batch' })], {
          product: PRODUCT,
        }),
      );
      const parent = await store.records.insert(context, product({ code: 'PARENT' }));
      const link = (id: string) => [{ fieldKey: 'parent', targetId: id }];
      const rows = [
        product({ code: 'Z-1', parent: parent.id }, link(parent.id)), // 0 inserted
        product({ code: 'PARENT' }), // 1 stored SKU
        product({ code: 'A-1' }), // 2 inserted
        product({ code: 'Z-1', parent: parent.id }, link(parent.id)), // 3 earlier in the batch
        product({}), // 4 no SKU
        product({}), // 5 no SKU
        product({ code: 'A-1' }), // 6 earlier in the batch
        product({ code: 'M-1' }), // 7 inserted
      ];
      const result = await store.records.insertMany(context, rows);
      assert.deepEqual(result, { skippedForSku: [1, 3, 6] });
      assert.equal(await countOf(store, context.model), 6);
      for (const [index, row] of rows.entries()) {
        const stored = await store.records.get(workspaceId, row.id);
        assert.equal(stored !== null, ![1, 3, 6].includes(index), `row ${index}`);
      }
      assert.deepEqual(await store.records.referencesTo(parent.id), [
        { sourceId: rows[0]!.id, modelSlug: 'batch', fieldKey: 'parent' },
      ]);
      assert.deepEqual(await listIds(store, context.model, 'createdAt_asc'), [
        parent.id,
        ...rows.filter((_, index) => ![1, 3, 6].includes(index)).map((row) => row.id),
      ]);
    });

    test('records: a 1000-row insertMany skips exactly the repeated SKUs, wherever the repeat falls in the batch', async () => {
      const workspaceId = await newWorkspace(store);
      const context = await newModel(
        store,
        workspaceId,
        shape(
          'mixed',
          [field('code', 'text'), field('text', 'text'), field('parent', 'relation', { relationTo: 'model:mixed' })],
          {
            product: PRODUCT,
          },
        ),
      );
      const parent = await store.records.insert(context, product({ code: 'S-0' }));
      await store.records.insertMany(context, [product({ code: 'S-1' }), product({ code: 'S-2' })]);
      let seed = 7;
      const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
      // Codes from a small space: repeats land in the same statement, in later ones, and on stored SKUs.
      const rows = Array.from({ length: 1000 }, (_, n) => {
        const draw = next() % 1500;
        const code = draw < 100 ? null : `S-${draw % 700}`;
        const data: RecordData = { ...(code === null ? {} : { code }), parent: parent.id, text: `row ${n}` };
        return product(data, [{ fieldKey: 'parent', targetId: parent.id }]);
      });
      // A large record whose SKU is taken: skipped, so it neither is stored nor marks the model.
      rows[999] = product({ code: 'S-1', text: 'L'.repeat(20_000) });
      const seen = new Set(['S-0', 'S-1', 'S-2']);
      const expectedSkipped: number[] = [];
      for (const [index, row] of rows.entries()) {
        if (row.sku === null) continue;
        if (seen.has(row.sku)) expectedSkipped.push(index);
        else seen.add(row.sku);
      }
      assert.ok(expectedSkipped.length > 200 && expectedSkipped.length < 900, `${expectedSkipped.length} repeats`);

      const { skippedForSku } = await store.records.insertMany(context, rows);
      assert.deepEqual(skippedForSku, expectedSkipped);
      const inserted = rows.filter((_, index) => !expectedSkipped.includes(index));
      assert.equal(await countOf(store, context.model), 3 + inserted.length);
      const listed = await store.records.list(context.model.id, { limit: 2000, offset: 0, sort: 'createdAt_asc' });
      assert.deepEqual(
        listed.slice(3).map((record) => [record.id, record.data.text]),
        inserted.map((row) => [row.id, row.data.text]),
        'the inserted rows, in input order, with their own data',
      );
      assert.deepEqual(
        (await store.records.referencesTo(parent.id)).map((reference) => reference.sourceId),
        inserted.map((row) => row.id).sort(),
        "each inserted row's link, and no other",
      );
      assert.equal((await store.models.get(workspaceId, context.model.id))!.hasLargeRecords, false);
    });

    test('records: concurrent imports with overlapping SKUs store each SKU once', async () => {
      const workspaceId = await newWorkspace(store);
      const context = await newModel(store, workspaceId, shape('overlap', [field('code', 'text')], { product: PRODUCT }));
      const codes = Array.from({ length: 200 }, (_, n) => `SKU-${String(n).padStart(3, '0')}`);
      // Each batch holds every SKU, in its own order: without a common lock order these would deadlock.
      const batches = [codes, [...codes].reverse(), codes.filter((_, n) => n % 2).concat(codes.filter((_, n) => n % 2 === 0))];
      const results = await Promise.all(
        batches.map((batch) =>
          store.records.insertMany(
            context,
            batch.map((code) => product({ code })),
          ),
        ),
      );
      const skipped = results.reduce((sum, result) => sum + result.skippedForSku.length, 0);
      assert.equal(skipped, codes.length * (batches.length - 1));
      assert.equal(await countOf(store, context.model), codes.length);
      const stored = await store.records.list(context.model.id, { limit: 100, offset: 0, sort: 'createdAt_asc' });
      assert.equal(new Set(stored.map((record) => record.data.code)).size, 100);
    });

    test('records: 20 concurrent modifies of different keys of one record all land', async () => {
      const workspaceId = await newWorkspace(store);
      const keys = Array.from({ length: 20 }, (_, n) => `k${n}`);
      const context = await newModel(
        store,
        workspaceId,
        shape(
          'counters',
          keys.map((key) => field(key, 'number')),
        ),
      );
      const record = await store.records.insert(context, newRecord({ k0: -1 }));
      const results = await Promise.all(
        keys.map((key, n) =>
          store.records.modify(workspaceId, record.id, `user-${n}`, (current) => replacement({ ...current.data, [key]: n })),
        ),
      );
      assert.ok(results.every((result) => result !== null));
      const stored = await store.records.get(workspaceId, record.id);
      assert.deepEqual(stored?.data, Object.fromEntries(keys.map((key, n) => [key, n])));
    });

    test('records: modify of a missing id is null; a throwing change writes nothing; a stored SKU is CONFLICT', async () => {
      const workspaceId = await newWorkspace(store);
      const context = await newModel(store, workspaceId, shape('modify', [field('code', 'text')], { product: PRODUCT }));
      const unchanged = () => {
        throw new Error('must not be called');
      };
      assert.equal(await store.records.modify(workspaceId, newId(), null, unchanged), null);
      const a = await store.records.insert(context, product({ code: 'A' }));
      await store.records.insert(context, product({ code: 'B' }));
      assert.equal(await store.records.modify(await newWorkspace(store), a.id, null, unchanged), null, 'other workspace');

      await assert.rejects(
        store.records.modify(workspaceId, a.id, null, () => {
          throw new ServiceError('BAD_USER_INPUT', 'code: refused');
        }),
        /code: refused/,
      );
      await assert.rejects(
        store.records.modify(workspaceId, a.id, null, () => replacement({ code: 'B' }, 'B')),
        isConflict('code: A record with this SKU already exists'),
      );
      assert.deepEqual(await store.records.get(workspaceId, a.id), a);
      const renamed = await store.records.modify(workspaceId, a.id, null, () => replacement({ code: 'C' }, 'C'));
      assert.deepEqual(renamed?.data, { code: 'C' });
      await store.records.insert(context, product({ code: 'A' }));
      assert.equal(await countOf(store, context.model), 3);
    });

    test('records: delete is refused while referenced, and with force removes the references', async () => {
      const workspaceId = await newWorkspace(store);
      const authors = await newModel(store, workspaceId, shape('authors', [field('name', 'text')]));
      const books = await newModel(
        store,
        workspaceId,
        shape('books', [
          field('title', 'text'),
          field('author', 'relation', { relationTo: 'model:authors', relationType: 'hasOne' }),
          field('coauthors', 'relation', { relationTo: 'model:authors', relationType: 'hasMany' }),
        ]),
      );
      const a1 = await store.records.insert(authors, newRecord({ name: 'Ann' }));
      const a2 = await store.records.insert(authors, newRecord({ name: 'Bob' }));
      const book = await store.records.insert(
        books,
        newRecord(
          { title: 'Tome', author: a1.id, coauthors: [a1.id, a2.id] },
          {
            links: [
              { fieldKey: 'author', targetId: a1.id },
              { fieldKey: 'coauthors', targetId: a1.id },
              { fieldKey: 'coauthors', targetId: a2.id },
            ],
          },
        ),
      );
      const references = [
        { sourceId: book.id, modelSlug: 'books', fieldKey: 'author' },
        { sourceId: book.id, modelSlug: 'books', fieldKey: 'coauthors' },
      ];
      assert.deepEqual(await store.records.referencesTo(a1.id), references);

      assert.deepEqual(await store.records.delete(workspaceId, a1.id, false), references);
      assert.ok(await store.records.get(workspaceId, a1.id), 'refused: still there');
      assert.equal(await countOf(store, authors.model), 2);
      assert.equal(await store.records.delete(await newWorkspace(store), a1.id, true), 'not-found', 'other workspace');

      assert.equal(await store.records.delete(workspaceId, a1.id, true), 'deleted');
      assert.equal(await store.records.get(workspaceId, a1.id), null);
      assert.equal(await countOf(store, authors.model), 1);
      assert.deepEqual((await store.records.get(workspaceId, book.id))?.data, { title: 'Tome', coauthors: [a2.id] });
      assert.deepEqual(await store.records.referencesTo(a1.id), []);
      assert.deepEqual(await store.records.referencesTo(a2.id), [references[1]]);

      // A record pointing at itself does not block its own deletion.
      const self = newRecord({ name: 'Self' });
      self.links = [{ fieldKey: 'mentor', targetId: self.id }];
      await store.records.insert(authors, self);
      assert.deepEqual(await store.records.referencesTo(self.id), []);
      assert.equal(await store.records.delete(workspaceId, self.id, false), 'deleted');

      // Deleting the source drops its links too.
      assert.equal(await store.records.delete(workspaceId, book.id, false), 'deleted');
      assert.deepEqual(await store.records.referencesTo(a2.id), []);
    });

    test("content version: read at once after this store's writes and another store's on the same database (nothing kept from before a write)", async () => {
      const { orgSlug, workspace } = await ownedWorkspace(store);
      const context = await newModel(store, workspace.id, shape('tin', [field('label', 'text')]));
      const versionOf = async (reader: Store) => (await reader.tenancy.findWorkspaceWithContentVersion(orgSlug, 'main'))!;
      const seen = new Set<string>();
      const moved = async (what: string, reader: Store = store) => {
        const found = await versionOf(reader);
        assert.ok(!seen.has(found.contentVersion), `${what}: the version moved (${found.contentVersion})`);
        seen.add(found.contentVersion);
        assert.equal((await versionOf(reader)).contentVersion, found.contentVersion, `${what}: read again, the same`);
        return found;
      };
      await moved('first read');
      await store.records.insert(context, newRecord({ label: 'one' }));
      await moved("this store's insert");
      assert.equal(await store.tenancy.setDefaultLocale(workspace.id, 'de'), true);
      assert.equal((await versionOf(store)).workspace.defaultLocale, 'de', "this store's workspace setting");
      // Another process on the same database: its own connections (on SQLite another connection to the file).
      const second = await openStore(target.url('main'));
      try {
        const before = (await versionOf(store)).contentVersion;
        assert.equal((await versionOf(second)).contentVersion, before, 'the other store reads the same version');
        await second.records.insert(context, newRecord({ label: 'two' }));
        await moved("the other store's insert");
        await second.records.insertMany(context, [newRecord({ label: 'three' })]);
        await moved("the other store's import");
        assert.equal(await second.tenancy.setDefaultLocale(workspace.id, 'fr'), true);
        assert.equal((await versionOf(store)).workspace.defaultLocale, 'fr', "the other store's workspace setting");
        await second.records.insert(context, newRecord({ label: 'four' }));
        await moved("the other store's insert, read by the other store", second);
        assert.equal((await versionOf(store)).contentVersion, (await versionOf(second)).contentVersion, 'both read one version');
      } finally {
        await second.close();
      }
    });

    test('content version: every write to a workspace moves it to a value it never had; a refused write or another workspace does not', async () => {
      const { orgSlug, workspace } = await ownedWorkspace(store);
      const otherWorkspace = await newWorkspace(store);
      const read = async () => {
        const found = await store.tenancy.findWorkspaceWithContentVersion(orgSlug, 'main');
        assert.ok(found);
        assert.deepEqual(found.workspace, workspace);
        return found.contentVersion;
      };
      assert.equal(await store.tenancy.findWorkspaceWithContentVersion(orgSlug, 'nope'), null);
      assert.equal(await store.tenancy.findWorkspaceWithContentVersion('nope', 'main'), null);
      const seen = new Set([await read()]);
      const moves = async <T>(what: string, write: () => Promise<T>): Promise<T> => {
        const result = await write();
        const version = await read();
        assert.ok(!seen.has(version), `${what}: the version moved to a new value`);
        seen.add(version);
        return result;
      };
      const stays = async (what: string, write: () => Promise<unknown>) => {
        const before = await read();
        await write().catch(() => undefined);
        assert.equal(await read(), before, `${what}: the version stayed`);
      };

      const authorShape = shape('authors', [field('name', 'text'), field('code', 'text')], { product: PRODUCT });
      let authors: WriteContext | undefined;
      await moves('model create', async () => (authors = await newModel(store, workspace.id, authorShape)));
      const books = await newModel(
        store,
        workspace.id,
        shape('books', [field('title', 'text'), field('author', 'relation', { relationTo: 'model:authors' })]),
      );
      seen.add(await read());
      const a1 = newRecord({ name: 'Ann', code: 'A1' }, { sku: 'A1' });
      await moves('insert', () => store.records.insert(authors!, a1));
      await stays('insert refused for its SKU', () => store.records.insert(authors!, newRecord({ code: 'A1' }, { sku: 'A1' })));
      await moves('insertMany', () =>
        store.records.insertMany(authors!, [newRecord({ name: 'Bob' }), newRecord({ name: 'Cy' })]),
      );
      await moves('modify', () =>
        store.records.modify(workspace.id, a1.id, null, () => replacement({ name: 'Ann B', code: 'A1' }, 'A1')),
      );
      await stays('modify whose change throws', () =>
        store.records.modify(workspace.id, a1.id, null, () => {
          throw new Error('refused');
        }),
      );
      const book = newRecord({ title: 'Tome', author: a1.id }, { links: [{ fieldKey: 'author', targetId: a1.id }] });
      await moves('insert of a referencing record', () => store.records.insert(books, book));
      await stays('delete refused while referenced', () => store.records.delete(workspace.id, a1.id, false));
      await moves('forced delete (removes the reference in books)', () => store.records.delete(workspace.id, a1.id, true));
      await moves('delete', () => store.records.delete(workspace.id, book.id, false));
      const other = await newModel(store, otherWorkspace, shape('elsewhere', [field('x', 'text')]));
      await stays('writes in another workspace', async () => {
        const record = await store.records.insert(other, newRecord({ x: '1' }));
        await store.records.modify(otherWorkspace, record.id, null, () => replacement({ x: '2' }));
        await store.records.delete(otherWorkspace, record.id, false);
      });
      const change = {
        shape: { ...authorShape, deliveryAccess: 'public' as const },
        removedFieldKeys: [],
        skuFieldChanged: null,
      };
      const updated = await moves('model update', () => store.models.update(authors!.model, change));
      await moves('the same model update again', () => store.models.update(updated, change));
      const empty = await newModel(store, workspace.id, shape('empty', [field('x', 'text')]));
      seen.add(await read());
      await moves('model delete', () => store.models.delete(workspace.id, empty.model.id));
    });

    test('records: existingIds names the records of that model only', async () => {
      const workspaceId = await newWorkspace(store);
      const one = await newModel(store, workspaceId, shape('one', [field('x', 'text')]));
      const two = await newModel(store, workspaceId, shape('two', [field('x', 'text')]));
      const a = await store.records.insert(one, newRecord({ x: 'a' }));
      const b = await store.records.insert(two, newRecord({ x: 'b' }));
      assert.deepEqual(await store.records.existingIds(one.model.id, [a.id, b.id, 'missing']), new Set([a.id]));
      assert.deepEqual(await store.records.existingIds(one.model.id, []), new Set());
    });

    test('records: getMany reads the workspace records among the ids in one call; over a size bound it reads none', async () => {
      const workspaceId = await newWorkspace(store);
      const one = await newModel(store, workspaceId, shape('one', [field('x', 'text')]));
      const two = await newModel(store, workspaceId, shape('two', [field('x', 'text')]));
      const elsewhere = await newModel(store, await newWorkspace(store), shape('one', [field('x', 'text')]));
      const a = await store.records.insert(one, newRecord({ x: 'a' }));
      const b = await store.records.insert(two, newRecord({ x: 'b'.repeat(1000) }));
      const foreign = await store.records.insert(elsewhere, newRecord({ x: 'foreign' }));
      const byId = (found: Awaited<ReturnType<Store['records']['getMany']>>) => {
        assert.notEqual(found, 'too-large');
        return new Map((found as StoredRecord[]).map((record) => [record.id, record]));
      };
      const found = byId(await store.records.getMany(workspaceId, [b.id, 'missing', a.id, foreign.id, a.id]));
      assert.deepEqual([...found.keys()].sort(), [a.id, b.id].sort());
      assert.deepEqual(found.get(a.id), await store.records.get(workspaceId, a.id));
      assert.equal(found.get(b.id)!.modelId, two.model.id);
      assert.deepEqual(await store.records.getMany(workspaceId, []), []);
      assert.deepEqual(
        [...byId(await store.records.getMany(workspaceId, [a.id, b.id], { maxDataBytes: 2000 })).keys()].sort(),
        [a.id, b.id].sort(),
      );
      assert.equal(await store.records.getMany(workspaceId, [a.id, b.id], { maxDataBytes: 1000 }), 'too-large');
      assert.deepEqual([...byId(await store.records.getMany(workspaceId, ['missing'], { maxDataBytes: 0 })).keys()], []);
      // Of one model: the others' records are neither read nor measured.
      const ofOne = { modelId: one.model.id, maxDataBytes: 100 };
      assert.deepEqual([...byId(await store.records.getMany(workspaceId, [a.id, b.id], ofOne)).keys()], [a.id]);
      assert.deepEqual(
        [...byId(await store.records.getMany(workspaceId, [a.id, b.id], { modelId: two.model.id })).keys()],
        [b.id],
      );
    });

    test("records: getMany of a model for readers that share records gives the current records after every write, this store's and another store's", async () => {
      const workspaceId = await newWorkspace(store);
      const context = await newModel(store, workspaceId, shape('category', [field('name', 'text')]));
      const modelId = context.model.id;
      const [first, second] = [newRecord({ name: 'first' }), newRecord({ name: 'second' })];
      await store.records.insertMany(context, [first, second]);
      const later = newRecord({ name: 'later' });
      // Read without settling the records' lazy data: a shared record is never changed by its readers.
      const read = async (of: Store, ids: string[], inWorkspace = workspaceId) => {
        const found = await of.records.getMany(inWorkspace, ids, { modelId, shared: true });
        assert.notEqual(found, 'too-large');
        return Object.fromEntries(
          (found as StoredRecord[])
            .map((record) => [record.id, (JSON.parse(unparsedText(record) ?? JSON.stringify(record.data)) as RecordData).name])
            .sort(),
        );
      };
      const ids = [first.id, second.id, later.id];
      const expected = { [first.id]: 'first', [second.id]: 'second' };
      assert.deepEqual(await read(store, ids), expected);
      assert.deepEqual(await read(store, ids), expected, 'read again');
      assert.deepEqual(await read(store, ids, await newWorkspace(store)), {}, 'asked in another workspace');
      await store.records.modify(workspaceId, first.id, null, () => replacement({ name: 'first, renamed' }));
      assert.deepEqual(await read(store, ids), { ...expected, [first.id]: 'first, renamed' });
      assert.equal(await store.records.delete(workspaceId, second.id, false), 'deleted');
      assert.deepEqual(await read(store, ids), { [first.id]: 'first, renamed' });
      await store.records.insert(context, later);
      assert.deepEqual(
        await read(store, ids),
        { [first.id]: 'first, renamed', [later.id]: 'later' },
        'an id read as missing, then written',
      );
      const other = await openStore(target.url('main'));
      try {
        await other.records.modify(workspaceId, later.id, null, () => replacement({ name: 'later, by another store' }));
        assert.deepEqual(await read(store, ids), { [first.id]: 'first, renamed', [later.id]: 'later, by another store' });
        await other.records.delete(workspaceId, first.id, false);
        assert.deepEqual(await read(store, ids), { [later.id]: 'later, by another store' });
      } finally {
        await other.close();
      }
    });

    test('records: getMany for readers that share records gives a record without the reference a forced delete of another model removed', async () => {
      const workspaceId = await newWorkspace(store);
      const authors = await newModel(store, workspaceId, shape('author', [field('name', 'text')]));
      const books = await newModel(
        store,
        workspaceId,
        shape('book', [field('title', 'text'), field('author', 'relation', { relationTo: 'model:author' })]),
      );
      const author = await store.records.insert(authors, newRecord({ name: 'gone' }));
      const book = newRecord({ title: 'B1', author: author.id }, { links: [{ fieldKey: 'author', targetId: author.id }] });
      await store.records.insert(books, book);
      const read = async () => {
        const found = await store.records.getMany(workspaceId, [book.id], { modelId: books.model.id, shared: true });
        assert.notEqual(found, 'too-large');
        const [record] = found as StoredRecord[];
        return JSON.parse(unparsedText(record!) ?? JSON.stringify(record!.data)) as RecordData;
      };
      assert.deepEqual(await read(), { title: 'B1', author: author.id });
      assert.equal(await store.records.delete(workspaceId, author.id, true), 'deleted');
      assert.deepEqual(await read(), { title: 'B1' });
    });

    test('models: a removed field is stripped from every record, with its links; countRecordsWithValue', async () => {
      const workspaceId = await newWorkspace(store);
      const fields = [field('title', 'text'), field('note', 'text'), field('see', 'relation', { relationTo: 'model:pages' })];
      const context = await newModel(store, workspaceId, shape('pages', fields));
      const first = await store.records.insert(context, newRecord({ title: 'One', note: 'n1' }));
      const second = await store.records.insert(
        context,
        newRecord({ title: 'Two', note: 'n2', see: first.id }, { links: [{ fieldKey: 'see', targetId: first.id }] }),
      );
      await store.records.insert(context, newRecord({ title: 'Three', note: null }));
      await store.records.insert(context, newRecord({ title: 'Four' }));
      assert.equal(await store.models.countRecordsWithValue(context.model.id, 'note'), 2, 'null and missing do not count');
      assert.equal(await store.models.countRecordsWithValue(context.model.id, 'see'), 1);
      assert.deepEqual(await store.records.referencesTo(first.id), [
        { sourceId: second.id, modelSlug: 'pages', fieldKey: 'see' },
      ]);

      const updated = await store.models.update(context.model, {
        shape: shape('pages', [fields[0]!], { name: 'Pages' }),
        removedFieldKeys: ['note', 'see'],
        skuFieldChanged: null,
      });
      assert.equal(updated.name, 'Pages');
      assert.deepEqual(updated.fields, [fields[0]]);
      assert.equal(updated.recordCount, 4);
      assert.equal(await store.models.countRecordsWithValue(context.model.id, 'note'), 0);
      assert.deepEqual((await store.records.get(workspaceId, second.id))?.data, { title: 'Two' });
      assert.deepEqual(
        (await store.records.list(context.model.id, { limit: 10, offset: 0, sort: 'createdAt_asc' })).map((r) => r.data),
        [{ title: 'One' }, { title: 'Two' }, { title: 'Three' }, { title: 'Four' }],
      );
      assert.deepEqual(await store.records.referencesTo(first.id), []);
    });

    test('models: a new SKU field with repeated values is CONFLICT and changes nothing; otherwise SKUs become unique', async () => {
      const workspaceId = await newWorkspace(store);
      const fields = [field('code', 'text'), field('name', 'text')];
      const context = await newModel(store, workspaceId, shape('catalog', fields));
      const x1 = await store.records.insert(context, newRecord({ code: 'X', name: 'first' }));
      await store.records.insert(context, newRecord({ code: 'X', name: 'second' }));
      await store.records.insert(context, newRecord({ code: 'Y' }));
      await store.records.insert(context, newRecord({ name: 'no code' }));

      const becomeProduct = {
        shape: shape('catalog', fields, { product: PRODUCT }),
        removedFieldKeys: [],
        skuFieldChanged: { skuField: 'code' },
      };
      await assert.rejects(
        store.models.update(context.model, becomeProduct),
        isConflict('product.skuField: stored records repeat values of "code"; A record with this SKU already exists'),
      );
      assert.equal((await store.models.get(workspaceId, context.model.id))?.product, null, 'the refused change is not stored');

      assert.equal(await store.records.delete(workspaceId, x1.id, false), 'deleted');
      const productModel = await store.models.update((await store.models.get(workspaceId, context.model.id))!, becomeProduct);
      assert.deepEqual(productModel.product, PRODUCT);
      const productContext = { model: productModel, userId: null };
      await assert.rejects(
        store.records.insert(productContext, product({ code: 'Y' })),
        isConflict('code: A record with this SKU already exists'),
      );
      assert.deepEqual(await store.records.insertMany(productContext, [product({ code: 'X' }), product({ code: 'Z' })]), {
        skippedForSku: [0],
      });

      const plain = await store.models.update(productModel, {
        shape: shape('catalog', fields),
        removedFieldKeys: [],
        skuFieldChanged: { skuField: null },
      });
      assert.equal(plain.product, null);
      await store.records.insert({ model: plain, userId: null }, newRecord({ code: 'Y' }));
      assert.equal(await countOf(store, plain), 5);
    });
  });
}

describe('PostgreSQL migrations', { skip: 'failure' in postgres ? postgres.failure : postgres.skip }, () => {
  const target = postgres as Target;
  after(async () => {
    await target.cleanup();
  });

  test('several stores opening one new schema at once all migrate it once and work', async () => {
    const url = target.url('race');
    const stores = await Promise.all(Array.from({ length: 4 }, () => openStore(url)));
    try {
      const bootstraps = await Promise.all(
        stores.map((store) =>
          store.tenancy.ensureMembership({
            orgSlug: 'race',
            workspaceSlug: 'main',
            email: 'race@example.com',
            role: null,
            defaultRole: 'owner',
          }),
        ),
      );
      assert.equal(new Set(bootstraps.map((result) => result.workspace.id)).size, 1);
      assert.equal(new Set(bootstraps.map((result) => result.membership.userId)).size, 1);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
    const reopened = await openStore(url);
    await reopened.close();
  });
});

test('the pool size and schema come from the URL and are not passed on to pg', () => {
  const options = parsePostgresUrl('postgres://u:p@host:5432/db?schema=cs_x&pool=3&sslmode=disable', {});
  assert.equal(options.schema, 'cs_x');
  assert.equal(options.poolSize, 3);
  const url = new URL(options.connectionString);
  assert.equal(url.searchParams.get('schema'), null);
  assert.equal(url.searchParams.get('pool'), null);
  assert.equal(url.searchParams.get('sslmode'), 'disable');
  assert.equal(url.searchParams.get('options'), '-c search_path="cs_x"');
  assert.equal(parsePostgresUrl('postgres://host/db', { PG_POOL_SIZE: '4' }).poolSize, 4);
  assert.equal(parsePostgresUrl('postgres://host/db', {}).poolSize, 10);
  assert.throws(() => parsePostgresUrl('postgres://host/db?pool=0', {}), /pool size/);
  assert.throws(() => parsePostgresUrl('postgres://host/db?schema=Bad-Name', {}), /schema/);
});
