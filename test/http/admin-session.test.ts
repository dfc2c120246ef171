// Sessions of the admin application: sign in with email and password (POST /admin/session), the cookie and its
// flags, GET (204 when signed out) and DELETE /admin/session, the CSRF header, POST /graphql authenticated by the
// session (roles, workspaces, no write budget), expiry and sliding, and `content-service user set-password`.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Admin, dataOf, gql, NOT_AUTHORIZED_BODY, request, type GqlResponse } from '../support/client.js';
import { startServer, type TestServer } from '../support/server.js';
import {
  runCliWithInput,
  runSql,
  selectRows,
  sessionCredentials,
  sessionIdOf,
  setPassword,
  signIn,
  signInRaw,
  type SignedIn,
} from '../support/session.js';

/** Small, so that the token writes run out while the session writes do not. */
const BUDGET = 3;
const PASSWORD = 'correct horse battery';
const CSRF_BODY = { errors: [{ message: 'Forbidden: missing or wrong CSRF token', extensions: { code: 'FORBIDDEN' } }] };
const CONNECTIVITY = '{ model { list { id slug name } } }';

let server: TestServer;
let owner: Admin; // owner@acme.test, owner of acme/main and acme/shop
let ownerUserId: string;
let shopId: string;
let otherWorkspaceId: string; // a workspace owner@acme.test is not a member of
let viewerWorkspaceToken: string; // a viewer's token in acme/main
const secrets: string[] = [PASSWORD];

before(async () => {
  // Many tests here sign in wrongly from 127.0.0.1: the limit per address is raised out of their way (it is tested in
  // test/security/sign-in-abuse.test.ts); the one per email keeps its default.
  server = await startServer({
    writeBudget: BUDGET,
    env: { LOG_LEVEL: 'trace', SIGN_IN_ATTEMPTS_PER_MINUTE_PER_ADDRESS: '1000' },
  });
  const bootstrapped = await server.bootstrap({ org: 'acme', workspace: 'main', email: 'owner@acme.test', role: 'owner' });
  owner = new Admin(server, bootstrapped);
  ownerUserId = bootstrapped.userId;
  shopId = (await server.bootstrap({ org: 'acme', workspace: 'shop', email: 'owner@acme.test', role: 'owner' })).workspaceId;
  otherWorkspaceId = (await server.bootstrap({ org: 'beta', workspace: 'main', email: 'someone@beta.test' })).workspaceId;
  viewerWorkspaceToken = (await server.createToken({ workspaceId: owner.workspaceId, email: 'viewer@acme.test', role: 'viewer' }))
    .token;
  await server.createToken({ workspaceId: owner.workspaceId, email: 'nopassword@acme.test', role: 'editor' });
  await setPassword(server, 'owner@acme.test', PASSWORD);
  await setPassword(server, 'viewer@acme.test', 'viewer password');
  secrets.push('viewer password');
});

after(async () => {
  await server?.dispose();
});

function remember(session: SignedIn): SignedIn {
  secrets.push(session.sessionId, session.csrfToken);
  return session;
}

async function ownerSession(): Promise<SignedIn> {
  return remember(await signIn(server, 'owner@acme.test', PASSWORD));
}

function getSession(cookie?: string): Promise<GqlResponse> {
  return request(`${server.url}/admin/session`, { headers: cookie ? { cookie } : {} });
}

function deleteSession(cookie: string | undefined, csrfToken?: string): Promise<GqlResponse> {
  const headers: Record<string, string> = {};
  if (cookie) headers.cookie = cookie;
  if (csrfToken !== undefined) headers['x-csrf-token'] = csrfToken;
  return request(`${server.url}/admin/session`, { method: 'DELETE', headers });
}

function assertNotAuthorized(response: GqlResponse): void {
  assert.equal(response.status, 401, `expected 401, got ${response.status}: ${response.text}`);
  assert.equal(response.text, JSON.stringify(NOT_AUTHORIZED_BODY));
}

function assertCsrfRefused(response: GqlResponse): void {
  assert.equal(response.status, 403, `expected 403, got ${response.status}: ${response.text}`);
  assert.deepEqual(response.body, CSRF_BODY);
}

function cookieAttributes(setCookie: string): string[] {
  return setCookie
    .split(';')
    .slice(1)
    .map((part) => part.trim());
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

async function medianMs(run: () => Promise<unknown>, times: number): Promise<number> {
  const durations: number[] = [];
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    await run();
    durations.push(performance.now() - started);
  }
  durations.sort((a, b) => a - b);
  return durations[Math.floor(times / 2)]!;
}

describe('sign in', () => {
  test('sign-in: 200 with the user, a CSRF token and every workspace with its role; email case does not matter', async () => {
    const response = await signInRaw(server, { email: 'Owner@ACME.test', password: PASSWORD });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(Object.keys(response.body).sort(), ['csrfToken', 'user', 'workspaces']);
    assert.deepEqual(response.body.user, { email: 'owner@acme.test' });
    assert.match(response.body.csrfToken, /^[A-Za-z0-9_-]{32,}$/);
    assert.deepEqual(response.body.workspaces, [
      { id: owner.workspaceId, orgSlug: 'acme', slug: 'main', role: 'owner' },
      { id: shopId, orgSlug: 'acme', slug: 'shop', role: 'owner' },
    ]);
    assert.equal(response.headers.get('cache-control'), 'no-store');
    secrets.push(response.body.csrfToken, sessionIdOf(response.headers.get('set-cookie'))!);
  });

  test('sign-in: the cookie is cs_session, random, HttpOnly, SameSite=Strict, Path=/, Max-Age=43200, not Secure over http', async () => {
    const a = await ownerSession();
    const b = await ownerSession();
    assert.match(a.sessionId, /^[A-Za-z0-9_-]{43}$/);
    assert.notEqual(a.sessionId, b.sessionId);
    assert.notEqual(a.csrfToken, b.csrfToken);
    assert.notEqual(a.csrfToken, a.sessionId);
    assert.ok(a.setCookie.startsWith(`cs_session=${a.sessionId};`), a.setCookie);
    assert.deepEqual(cookieAttributes(a.setCookie), ['HttpOnly', 'SameSite=Strict', 'Path=/', 'Max-Age=43200']);
  });

  test('sign-in: Secure is added when the request came over https (x-forwarded-proto from the proxy)', async () => {
    const response = await signInRaw(server, { email: 'owner@acme.test', password: PASSWORD }, { 'x-forwarded-proto': 'https' });
    assert.equal(response.status, 200, response.text);
    const setCookie = response.headers.get('set-cookie')!;
    secrets.push(sessionIdOf(setCookie)!, response.body.csrfToken);
    assert.deepEqual(cookieAttributes(setCookie), ['HttpOnly', 'SameSite=Strict', 'Path=/', 'Max-Age=43200', 'Secure']);
  });

  test('sign-in: a wrong password, an unknown email and a user without a password all get the same 401, and no cookie', async () => {
    for (const body of [
      { email: 'owner@acme.test', password: 'wrong password' },
      { email: 'nobody@acme.test', password: PASSWORD },
      { email: 'nopassword@acme.test', password: PASSWORD },
      { email: 'owner@acme.test', password: PASSWORD.toUpperCase() },
      { email: 'owner@acme.test', password: 'x'.repeat(5000) },
    ]) {
      const response = await signInRaw(server, body);
      assertNotAuthorized(response);
      assert.equal(response.headers.get('set-cookie'), null);
    }
  });

  test('sign-in: an unknown email takes about as long as a wrong password (it is checked against a dummy hash)', async () => {
    // Different emails each time, so the attempt limit is not reached. A missing dummy check would make the
    // unknown email about a hundred times faster; the bound leaves room for a busy machine.
    let n = 0;
    const known = await medianMs(() => signInRaw(server, { email: 'viewer@acme.test', password: `wrong ${n++}` }), 3);
    const unknown = await medianMs(() => signInRaw(server, { email: `ghost-${n++}@acme.test`, password: 'wrong' }), 3);
    assert.ok(unknown > known * 0.3, `unknown email ${unknown.toFixed(0)} ms vs wrong password ${known.toFixed(0)} ms`);
  });

  test('sign-in: a malformed body is 400 naming the field; a body that is not JSON is 415', async () => {
    const cases: [unknown, string][] = [
      [{ password: PASSWORD }, 'email: must be a non-empty string'],
      [{ email: 'owner@acme.test' }, 'password: must be a non-empty string'],
      [{ email: 'owner@acme.test', password: 12345678 }, 'password: must be a non-empty string'],
      [[1], 'Request body must be a JSON object with "email" and "password"'],
    ];
    for (const [body, message] of cases) {
      const response = await signInRaw(server, body);
      assert.equal(response.status, 400, response.text);
      assert.equal(response.body.errors[0].message, message);
      assert.equal(response.body.errors[0].extensions.code, 'BAD_USER_INPUT');
    }
    const form = await request(`${server.url}/admin/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `email=owner%40acme.test&password=${encodeURIComponent(PASSWORD)}`,
    });
    assert.equal(form.status, 415, form.text);
    assert.equal(form.headers.get('set-cookie'), null);
  });

  test('sign-in: after 5 attempts in a minute for one email from one address, 429 with Retry-After; other emails unaffected', async () => {
    const email = 'limited@acme.test';
    for (let i = 0; i < 5; i++) assertNotAuthorized(await signInRaw(server, { email, password: `guess ${i}` }));
    const limited = await signInRaw(server, { email, password: 'guess 5' });
    assert.equal(limited.status, 429, limited.text);
    const retryAfter = Number(limited.headers.get('retry-after'));
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    assert.deepEqual(limited.body, {
      errors: [
        {
          message: `Too many sign-in attempts; try again in ${retryAfter} seconds`,
          extensions: { code: 'RATE_LIMITED', retryAfter },
        },
      ],
    });
    assert.equal(
      (await signInRaw(server, { email: 'LIMITED@acme.test', password: 'x' })).status,
      429,
      'the email is normalised first',
    );
    await ownerSession(); // another email from the same address still signs in
  });
});

describe('GET and DELETE /admin/session', () => {
  test('session: GET answers the sign-in body while the cookie is valid; 401 with an unknown one', async () => {
    const session = await ownerSession();
    const response = await getSession(session.cookie);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body, session.body);
    assert.equal(response.headers.get('cache-control'), 'no-store');

    const unknown = await getSession('cs_session=not-a-session');
    assertNotAuthorized(unknown);
    assert.match(unknown.headers.get('set-cookie') ?? '', /^cs_session=; .*Max-Age=0/, 'an unknown cookie is cleared');
    assertNotAuthorized(await getSession(`cs_session=${'a'.repeat(5000)}`));
  });

  test('session: GET without a session cookie is 204 with no body: signed out is an answer, not a refusal', async () => {
    for (const cookie of [undefined, 'other=1', 'cs_session=']) {
      const response = await getSession(cookie);
      assert.equal(response.status, 204, `${cookie ?? 'no cookie'}: ${response.status} ${response.text}`);
      assert.equal(response.text, '');
      assert.equal(response.headers.get('cache-control'), 'no-store');
      assert.equal(response.headers.get('set-cookie'), null);
    }
  });

  test('session: the database holds only the SHA-256 of the session id', async () => {
    const session = await ownerSession();
    assert.equal(
      await runSql(server, 'UPDATE sessions SET last_seen = last_seen WHERE id_hash = ?', [sha256(session.sessionId)]),
      1,
    );
    assert.equal(await runSql(server, 'UPDATE sessions SET last_seen = last_seen WHERE id_hash = ?', [session.sessionId]), 0);
  });

  test('sign-out: DELETE without the CSRF header, or with a wrong one, is 403 and the session keeps working', async () => {
    const session = await ownerSession();
    assertCsrfRefused(await deleteSession(session.cookie));
    assertCsrfRefused(await deleteSession(session.cookie, 'wrong'));
    assertCsrfRefused(await deleteSession(session.cookie, ''));
    assert.equal((await getSession(session.cookie)).status, 200);
  });

  test('sign-out: DELETE with the CSRF header is 204, clears the cookie, and the session stops working everywhere', async () => {
    const session = await ownerSession();
    const credentials = sessionCredentials(session, owner.workspaceId);
    assert.equal((await gql(server.adminUrl, credentials, CONNECTIVITY)).status, 200);

    const response = await request(`${server.url}/admin/session`, {
      method: 'DELETE',
      // Also with a JSON content type and no body, as a client labelling every request JSON sends it.
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrfToken, 'content-type': 'application/json' },
    });
    assert.equal(response.status, 204, response.text);
    assert.equal(response.text, '');
    const cleared = response.headers.get('set-cookie') ?? '';
    assert.ok(cleared.startsWith('cs_session=;'), cleared);
    assert.ok(cookieAttributes(cleared).includes('Max-Age=0'), cleared);

    assertNotAuthorized(await getSession(session.cookie));
    assertNotAuthorized(await gql(server.adminUrl, credentials, CONNECTIVITY));
    assertNotAuthorized(await deleteSession(session.cookie, session.csrfToken));
  });

  test('session: an expired session is refused (and removed); the expiry is not extended by trying', async () => {
    const session = await ownerSession();
    const idHash = sha256(session.sessionId);
    assert.equal(await runSql(server, 'UPDATE sessions SET expires_at = ? WHERE id_hash = ?', [Date.now() - 1000, idHash]), 1);
    assertNotAuthorized(await gql(server.adminUrl, sessionCredentials(session, owner.workspaceId), CONNECTIVITY));
    assertNotAuthorized(await getSession(session.cookie));
    assert.equal(await runSql(server, 'UPDATE sessions SET last_seen = last_seen WHERE id_hash = ?', [idHash]), 0, 'row removed');
  });

  test('session: use slides the expiry 12 hours forward, never beyond 7 days after sign-in', async () => {
    const session = await ownerSession();
    const idHash = sha256(session.sessionId);
    const now = Date.now();
    // Last used two minutes ago, expiring in one minute: a use moves the expiry to 12 hours from now.
    await runSql(server, 'UPDATE sessions SET last_seen = ?, expires_at = ? WHERE id_hash = ?', [
      now - 120_000,
      now + 60_000,
      idHash,
    ]);
    const response = await gql(server.adminUrl, sessionCredentials(session, owner.workspaceId), CONNECTIVITY);
    dataOf(response);
    assert.deepEqual(cookieAttributes(response.headers.get('set-cookie') ?? ''), [
      'HttpOnly',
      'SameSite=Strict',
      'Path=/',
      'Max-Age=43200',
    ]);
    assert.equal(
      await runSql(server, 'UPDATE sessions SET last_seen = last_seen WHERE id_hash = ? AND expires_at > ?', [
        idHash,
        now + 11 * 3_600_000,
      ]),
      1,
      'expiry moved about 12 hours ahead',
    );

    // Signed in almost 7 days ago: the expiry stops at the 7 days.
    const sevenDays = 7 * 24 * 3_600_000;
    await runSql(server, 'UPDATE sessions SET created_at = ?, last_seen = ? WHERE id_hash = ?', [
      now - sevenDays + 30_000,
      now - 120_000,
      idHash,
    ]);
    const late = await getSession(session.cookie);
    assert.equal(late.status, 200, late.text);
    const maxAge = Number(/Max-Age=(\d+)/.exec(late.headers.get('set-cookie') ?? '')?.[1]);
    assert.ok(maxAge <= 30, `Max-Age ${maxAge} ends at the 7 days`);
  });
});

describe('POST /graphql with a session', () => {
  test('session graphql: with the CSRF header, acts as the user with the role in the workspace named by x-workspace-id', async () => {
    const session = await ownerSession();
    for (const workspaceId of [owner.workspaceId, shopId]) {
      const data = dataOf(
        await gql(server.adminUrl, sessionCredentials(session, workspaceId), '{ workspace { current { id role } } }'),
      );
      assert.deepEqual(data.workspace.current, { id: workspaceId, role: 'owner' });
    }
    const model = dataOf(
      await gql(
        server.adminUrl,
        sessionCredentials(session, owner.workspaceId),
        'mutation($input: CreateModelDefinitionInput!) { model { create(input: $input) { id } } }',
        { input: { name: 'Session', slug: 'session-made', fields: [{ key: 'title', type: 'text' }] } },
      ),
    ).model.create;
    const record = dataOf(
      await gql(
        server.adminUrl,
        sessionCredentials(session, owner.workspaceId),
        'mutation($input: CreateModelRecordInput!) { record { create(input: $input) { id createdBy } } }',
        { input: { modelId: model.id, data: { title: 'by session' } } },
      ),
    ).record.create;
    assert.equal(record.createdBy, ownerUserId, 'written as the signed-in user');
  });

  test('session graphql: without the CSRF header, or with a wrong one, 403 for reads and writes alike, nothing written', async () => {
    const session = await ownerSession();
    const model = await owner.createSimpleModel();
    for (const csrfToken of [undefined, 'wrong', session.csrfToken.slice(0, -1), session.csrfToken + 'x']) {
      const credentials = {
        cookie: session.cookie,
        workspaceId: owner.workspaceId,
        ...(csrfToken === undefined ? {} : { csrfToken }),
      };
      assertCsrfRefused(await gql(server.adminUrl, credentials, CONNECTIVITY));
      assertCsrfRefused(
        await gql(
          server.adminUrl,
          credentials,
          'mutation($input: CreateModelRecordInput!) { record { create(input: $input) { id } } }',
          {
            input: { modelId: model.id, data: { title: 'csrf' } },
          },
        ),
      );
    }
    // Another session's CSRF token does not fit this session.
    const other = await ownerSession();
    assertCsrfRefused(
      await gql(
        server.adminUrl,
        { cookie: session.cookie, csrfToken: other.csrfToken, workspaceId: owner.workspaceId },
        CONNECTIVITY,
      ),
    );
    assert.equal(await owner.total(model.id), 0);
  });

  test('session graphql: a workspace the user is not a member of, a missing or unknown workspace id, or a bad cookie: 401', async () => {
    const session = await ownerSession();
    for (const workspaceId of [otherWorkspaceId, undefined, 'no-such-workspace']) {
      const credentials = { cookie: session.cookie, csrfToken: session.csrfToken, ...(workspaceId ? { workspaceId } : {}) };
      assertNotAuthorized(await gql(server.adminUrl, credentials, CONNECTIVITY));
    }
    assertNotAuthorized(
      await gql(
        server.adminUrl,
        { cookie: 'cs_session=forged', csrfToken: session.csrfToken, workspaceId: owner.workspaceId },
        CONNECTIVITY,
      ),
    );
    assertNotAuthorized(
      await gql(server.adminUrl, { csrfToken: session.csrfToken, workspaceId: owner.workspaceId }, CONNECTIVITY),
    );
  });

  test("session graphql: the user's role applies: a viewer's session reads but may not write records", async () => {
    const session = remember(await signIn(server, 'viewer@acme.test', 'viewer password'));
    assert.deepEqual(session.body.workspaces, [{ id: owner.workspaceId, orgSlug: 'acme', slug: 'main', role: 'viewer' }]);
    const model = await owner.createSimpleModel();
    const credentials = sessionCredentials(session, owner.workspaceId);
    dataOf(await gql(server.adminUrl, credentials, CONNECTIVITY));
    const refused = await gql(
      server.adminUrl,
      credentials,
      'mutation($input: CreateModelRecordInput!) { record { create(input: $input) { id } } }',
      { input: { modelId: model.id, data: { title: 'no' } } },
    );
    assert.equal(refused.status, 403, refused.text);
    assert.deepEqual(refused.body.errors, [
      { message: 'Forbidden: viewer may not write records', extensions: { code: 'FORBIDDEN' } },
    ]);
  });

  test('session graphql: an Authorization header takes precedence over the cookie', async () => {
    const session = await ownerSession();
    const model = await owner.createSimpleModel();
    const write = (authorization: string) =>
      gql(
        server.adminUrl,
        sessionCredentials(session, owner.workspaceId),
        'mutation($input: CreateModelRecordInput!) { record { create(input: $input) { id } } }',
        { input: { modelId: model.id, data: { title: 'x' } } },
        { authorization },
      );
    const asViewer = await write(`Bearer ${viewerWorkspaceToken}`);
    assert.equal(asViewer.status, 403, `the viewer token decides, not the owner session: ${asViewer.text}`);
    assertNotAuthorized(await write('Bearer cs_not-a-token'));
    assertNotAuthorized(await write('Basic b3duZXI6cGFzcw=='));
    assert.equal(await owner.total(model.id), 0);
  });

  test(`session graphql: record writes are not charged to the write budget (${BUDGET}/min), while token writes get 429`, async () => {
    const workspace = await server.bootstrap({ org: 'budget', workspace: 'main', email: 'owner@acme.test', role: 'owner' });
    const session = await ownerSession();
    const credentials = sessionCredentials(session, workspace.workspaceId);
    const model = dataOf(
      await gql(
        server.adminUrl,
        credentials,
        'mutation($input: CreateModelDefinitionInput!) { model { create(input: $input) { id } } }',
        {
          input: { name: 'Budget', slug: 'budget', fields: [{ key: 'title', type: 'text' }] },
        },
      ),
    ).model.create;
    const create = (creds: typeof credentials | { token: string; workspaceId: string }, title: string) =>
      gql(server.adminUrl, creds, 'mutation($input: CreateModelRecordInput!) { record { create(input: $input) { id } } }', {
        input: { modelId: model.id, data: { title } },
      });

    for (let i = 0; i < BUDGET * 3; i++) dataOf(await create(credentials, `session ${i}`));
    // An import larger than the whole budget is not refused either (a token would get 413).
    const rows = Array.from({ length: BUDGET * 10 }, (_, i) => ({ title: `imported ${i}` }));
    const imported = dataOf(
      await gql(
        server.adminUrl,
        credentials,
        'mutation($input: ImportModelRecordsInput!) { record { import(input: $input) { importedCount errors { row } } } }',
        {
          input: { modelId: model.id, rows },
        },
      ),
    ).record.import;
    assert.deepEqual(imported, { importedCount: BUDGET * 10, errors: [] });

    // The token of the same workspace still has its whole budget, and no more.
    const token = { token: workspace.token, workspaceId: workspace.workspaceId };
    for (let i = 0; i < BUDGET; i++) dataOf(await create(token, `token ${i}`));
    const limited = await create(token, 'one too many');
    assert.equal(limited.status, 429, limited.text);
    assert.ok(limited.headers.get('retry-after'));
    const tooBig = await gql(
      server.adminUrl,
      token,
      'mutation($input: ImportModelRecordsInput!) { record { import(input: $input) { importedCount } } }',
      {
        input: { modelId: model.id, rows },
      },
    );
    assert.equal(tooBig.status, 413, tooBig.text);
    // ...and the session keeps writing while the token is limited.
    dataOf(await create(credentials, 'session after the token ran out'));
    const total = dataOf(
      await gql(server.adminUrl, credentials, 'query($id: ID!) { record { list(modelId: $id, limit: 1) { total } } }', {
        id: model.id,
      }),
    ).record.list.total;
    assert.equal(total, BUDGET * 3 + BUDGET * 10 + BUDGET + 1);
  });
});

describe('content-service user set-password', () => {
  test('cli user set-password: unknown email exits 1 naming it; nothing is created', async () => {
    const result = await runCliWithInput(
      ['user', 'set-password', '--email', 'stranger@acme.test', '--password-stdin', '--database', server.databaseUrl],
      'long enough password\n',
    );
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /No user with email "stranger@acme.test"/);
    assertNotAuthorized(await signInRaw(server, { email: 'stranger@acme.test', password: 'long enough password' }));
  });

  test('cli user set-password: a password under 8 characters exits 1 with a message naming the field', async () => {
    const result = await runCliWithInput(
      ['user', 'set-password', '--email', 'viewer@acme.test', '--password-stdin', '--database', server.databaseUrl],
      'short\n',
    );
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /password: must be at least 8 characters/);
    await signIn(server, 'viewer@acme.test', 'viewer password').then(remember); // unchanged
  });

  test('cli user set-password: without --password-stdin or CONTENT_SERVICE_PASSWORD it exits 1 and says how to give it', async () => {
    const result = await runCliWithInput(
      ['user', 'set-password', '--email', 'viewer@acme.test', '--database', server.databaseUrl],
      '',
      {
        env: { CONTENT_SERVICE_PASSWORD: undefined },
      },
    );
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /--password-stdin/);
    assert.match(result.stderr, /CONTENT_SERVICE_PASSWORD/);
  });

  test('cli user set-password: from CONTENT_SERVICE_PASSWORD; a new password works, the old one and old sessions stop', async () => {
    await server.createToken({ workspaceId: owner.workspaceId, email: 'rotate@acme.test', role: 'editor' });
    await setPassword(server, 'rotate@acme.test', 'first password');
    const before = await signIn(server, 'rotate@acme.test', 'first password');
    const result = await runCliWithInput(
      ['user', 'set-password', '--email', 'ROTATE@acme.test', '--database', server.databaseUrl],
      '',
      {
        env: { CONTENT_SERVICE_PASSWORD: 'second password' },
      },
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Password set for rotate@acme.test/);
    assertNotAuthorized(await signInRaw(server, { email: 'rotate@acme.test', password: 'first password' }));
    assertNotAuthorized(await getSession(before.cookie));
    await signIn(server, 'rotate@acme.test', 'second password');
  });

  test('cli bootstrap --password-stdin: creates the workspace and user with a password to sign in with', async () => {
    const result = await runCliWithInput(
      [
        'bootstrap',
        '--org',
        'fresh',
        '--workspace',
        'main',
        '--email',
        'fresh@acme.test',
        '--json',
        '--password-stdin',
        '--database',
        server.databaseUrl,
      ],
      'fresh password\n',
    );
    assert.equal(result.code, 0, result.stderr);
    const bootstrapped = JSON.parse(result.stdout);
    const session = remember(await signIn(server, 'fresh@acme.test', 'fresh password'));
    assert.deepEqual(session.body.workspaces, [{ id: bootstrapped.workspaceId, orgSlug: 'fresh', slug: 'main', role: 'owner' }]);
    const short = await runCliWithInput(
      [
        'bootstrap',
        '--org',
        'fresh2',
        '--workspace',
        'main',
        '--email',
        'fresh2@acme.test',
        '--json',
        '--password-stdin',
        '--database',
        server.databaseUrl,
      ],
      'short\n',
    );
    assert.equal(short.code, 1, short.stderr);
    assert.match(short.stderr, /password: must be at least 8 characters/);
  });

  test('cli user set-password: PASSWORD_HASH_COST sets the scrypt cost of the stored hash (15 when unset); a bad one exits 1, nothing changed', async () => {
    const email = 'cost@acme.test';
    await server.createToken({ workspaceId: owner.workspaceId, email, role: 'editor' });
    const storedHash = async () =>
      (await selectRows(server, 'SELECT password_hash FROM users WHERE email = ?', [email]))[0]?.password_hash;
    const setWithCost = (cost: string, password: string) =>
      runCliWithInput(
        ['user', 'set-password', '--email', email, '--password-stdin', '--database', server.databaseUrl],
        `${password}\n`,
        {
          env: { PASSWORD_HASH_COST: cost },
        },
      );

    assert.equal((await setWithCost('', 'default cost password')).code, 0);
    assert.match(String(await storedHash()), /^\$scrypt\$ln=15,r=8,p=3\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
    await signIn(server, email, 'default cost password').then(remember);

    assert.equal((await setWithCost('12', 'cost twelve password')).code, 0);
    const twelve = String(await storedHash());
    assert.match(twelve, /^\$scrypt\$ln=12,r=8,p=3\$/);
    await signIn(server, email, 'cost twelve password').then(remember);

    for (const bad of ['9', '21', 'x', '12.5', '-15']) {
      const result = await setWithCost(bad, 'never stored password');
      assert.equal(result.code, 1, `${bad}: ${result.stderr}`);
      assert.match(
        result.stderr,
        new RegExp(`PASSWORD_HASH_COST: must be a whole number from 10 to 20, got "${bad.replace('.', '\\.')}"`),
      );
      assert.equal(await storedHash(), twelve, `${bad}: the password is unchanged`);
    }
  });
});

describe('logs', () => {
  test('session logs: no password, session id or CSRF token appears in the server output, even at LOG_LEVEL=trace', async () => {
    const logs = server.logs();
    assert.ok(logs.includes('/admin/session'), 'the requests were logged');
    for (const secret of secrets) assert.ok(!logs.includes(secret), `a secret leaked into the logs: ${secret.slice(0, 6)}…`);
  });
});
