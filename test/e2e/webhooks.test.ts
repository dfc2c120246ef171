// End to end: Settings → Webhooks in headless Chromium against a real server (private addresses allowed, so that
// it may send to a receiver on 127.0.0.1). Create a webhook through the form, see its secret once, send a ping and
// see the delivery succeed in the log (the receiver verifies it with the Standard Webhooks library), get a field
// error for a bad URL, pause, rotate (the next delivery carries both signatures), delete.
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { dataOf, gql } from '../support/client.js';
import { waitFor } from '../support/wait-for.js';
import { setPassword } from '../support/session.js';
import { chromiumMissing, PASSWORD, signInThroughPage, startAdminSetup, unlabelledControls, type AdminSetup } from './support.js';

const missing = chromiumMissing();
if (missing && process.env.CI === 'true') {
  test('Chromium is installed', () => assert.fail(missing));
} else if (missing) {
  console.log(`# webhooks e2e skipped: ${missing}`);
}

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

describe('admin web application: webhooks', { skip: missing }, () => {
  let setup: AdminSetup;
  let page: Page;
  let receiver: Server;
  let receiverUrl = '';
  const received: Received[] = [];
  let secret = '';
  /** The receiver's answer: 204, or a failure a test asks for; given once `held` (when set) resolves. */
  let answer = 204;
  let held: Promise<void> | undefined;

  before(async () => {
    receiver = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
        void Promise.resolve(held).then(() => response.writeHead(answer).end());
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    setup = await startAdminSetup({ server: { env: { LOG_LEVEL: 'warn', WEBHOOK_ALLOW_PRIVATE: 'true' } } });
    page = setup.page;
  });

  after(async () => {
    await setup?.close();
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  const api = async (query: string, variables?: Record<string, unknown>) =>
    dataOf(
      await gql(
        `${setup.url}/graphql`,
        { token: setup.workspace.token, workspaceId: setup.workspace.workspaceId },
        query,
        variables,
      ),
    );

  const webhookId = () => /#\/settings\/webhooks\/([^?]+)/.exec(page.url())?.[1] ?? '';
  const deliveryRow = (eventType: string) => page.locator('table.deliveries tbody tr').filter({ hasText: eventType });

  test('the Webhooks page is in the navigation for an owner, empty at first, every control labelled', async () => {
    await signInThroughPage(page, setup.url);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await page.getByText('No webhooks yet.').waitFor();
    assert.deepEqual(await unlabelledControls(page), []);
  });

  test('creates a webhook and shows its signing secret once, with a copy button', async () => {
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await page.getByText('Give the URL the events are sent to.').waitFor();
    // A message goes once the field is edited.
    await page.getByLabel('Endpoint URL').fill(receiverUrl);
    assert.equal(await page.getByText('Give the URL the events are sent to.').isVisible(), false);
    assert.equal(await page.getByLabel('Endpoint URL').getAttribute('aria-invalid'), null);
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await page.getByText('Choose at least one event.').waitFor();
    await page.getByLabel('All events, including ones added later').check();
    assert.equal(await page.getByText('Choose at least one event.').isVisible(), false);
    assert.equal(await page.getByLabel('Record created').isDisabled(), true);
    await page.getByLabel('Description (optional)').fill('Site rebuild');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const panel = page.getByRole('region', { name: `Webhook to ${receiverUrl} created` });
    await panel.waitFor();
    secret = await page.getByLabel('The signing secret').inputValue();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]+=*$/);
    await panel.getByRole('button', { name: 'Copy secret' }).waitFor();
    await page.getByRole('button', { name: 'Done, hide the secret' }).click();
    await panel.waitFor({ state: 'detached' });
    assert.equal(await page.getByText(secret).count(), 0);
    const row = page.locator('table.webhooks tbody tr').filter({ hasText: receiverUrl });
    await row.getByRole('cell', { name: 'All events' }).waitFor();
    await row.getByRole('cell', { name: 'Active' }).waitFor();
    const listed = await api('{ webhook { list { url events description active } } }');
    assert.deepEqual(listed.webhook.list, [{ url: receiverUrl, events: ['*'], description: 'Site rebuild', active: true }]);
  });

  test('sends a ping; the delivery succeeds in the log and the receiver verifies its signature', async () => {
    await page.getByRole('link', { name: receiverUrl }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhook' }).waitFor();
    await page.getByText('No deliveries yet.').waitFor();
    assert.deepEqual(await unlabelledControls(page), []);
    await page.getByRole('button', { name: 'Send ping' }).click();
    const row = deliveryRow('webhook.ping');
    // The log reads itself again while a delivery is pending.
    await row.getByText('Succeeded').waitFor({ timeout: 20_000 });
    await row.getByRole('cell', { name: '204', exact: true }).waitFor();
    await row.getByRole('cell', { name: '1', exact: true }).waitFor();
    await waitFor(() => received.length >= 1, { timeoutMs: 5000, message: 'the ping at the receiver' });
    const ping = received.find((delivery) => JSON.parse(delivery.body).type === 'webhook.ping');
    assert.ok(ping, 'a webhook.ping body');
    new Webhook(secret).verify(ping.body, ping.headers as Record<string, string>);
  });

  test('filters the log by status and redelivers a delivery', async () => {
    await page.getByLabel('Status', { exact: true }).selectOption('failed');
    await page.getByText('No failed deliveries.').waitFor();
    assert.equal(
      await page.getByLabel('Status', { exact: true }).evaluate((element) => element === document.activeElement),
      true,
    );
    await page.getByLabel('Status', { exact: true }).selectOption('succeeded');
    await deliveryRow('webhook.ping').waitFor();
    const before = received.length;
    await deliveryRow('webhook.ping')
      .getByRole('button', { name: /^Redeliver webhook\.ping/ })
      .click();
    await waitFor(() => received.length > before, { timeoutMs: 15_000, message: 'the redelivery at the receiver' });
    const again = received.at(-1)!;
    assert.equal(again.headers['webhook-id'], received[before - 1]!.headers['webhook-id'], 'a redelivery keeps the event id');
    new Webhook(secret).verify(again.body, again.headers as Record<string, string>);
  });

  test('the log reads itself again soon after a send, shows a near retry to the second, and a redelivery under a filter', async () => {
    const deliveries = async () =>
      (
        await api('query ($id: ID!) { webhook { deliveries(webhookId: $id) { items { status attempts } } } }', {
          id: webhookId(),
        })
      ).webhook.deliveries.items as { status: string; attempts: number }[];
    /** Holds the receiver's answers until the returned function is called. */
    const hold = () => {
      let release = () => {};
      held = new Promise<void>((resolve) => (release = resolve));
      return () => {
        release();
        held = undefined;
      };
    };
    // The page's timers on a paused clock: the log is read again only when the test moves the clock on.
    await page.clock.install();
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Webhook' }).waitFor();
    await page.getByLabel('Status', { exact: true }).selectOption('');
    const count = (await deliveries()).length;
    await page.getByText(`Deliveries 1–${count} of ${count}`).waitFor();
    await page.clock.pauseAt(Date.now() + 100);
    const top = page.locator('table.deliveries tbody tr').first();

    // A ping shown pending, answered 410 (which fails it at once): the log shows that soon after, by itself.
    answer = 410;
    let release = hold();
    await page.getByRole('button', { name: 'Send ping' }).click();
    await page.getByText(`Deliveries 1–${count + 1} of ${count + 1}`).waitFor();
    await top.getByText('Pending').waitFor();
    release();
    await waitFor(async () => (await deliveries())[0]?.status === 'failed', { timeoutMs: 15_000, message: 'the failed ping' });
    await page.clock.runFor(500);
    await top.getByText('Failed').waitFor({ timeout: 5000 });
    await top.getByRole('cell', { name: '410', exact: true }).waitFor();

    // Redelivered from the Failed filter: the new delivery is shown, at the top of the unfiltered log. A 500 is
    // retried 5 s later: the next attempt is shown to the second.
    await page.getByLabel('Status', { exact: true }).selectOption('failed');
    await page.getByText('Deliveries 1–1 of 1').waitFor();
    answer = 500;
    release = hold();
    await top.getByRole('button', { name: /^Redeliver webhook\.ping/ }).click();
    await page.locator('main').getByRole('status').filter({ hasText: 'webhook.ping sent again as a new delivery.' }).waitFor();
    assert.equal(await page.getByLabel('Status', { exact: true }).inputValue(), '');
    await top.getByText('Pending').waitFor();
    release();
    await waitFor(async () => (await deliveries())[0]?.attempts === 1, { timeoutMs: 15_000, message: 'the first attempt' });
    await page.clock.runFor(500);
    await top.getByRole('cell', { name: '500', exact: true }).waitFor({ timeout: 5000 });
    await top.getByText('Pending').waitFor();
    assert.match(await top.locator('td').nth(5).innerText(), /\d:\d\d:\d\d/, 'the next attempt to the second');
    answer = 204;
    await page.clock.resume();
  });

  test('a URL the server refuses is shown next to the field', async () => {
    await page.getByLabel('Endpoint URL').fill('ftp://127.0.0.1/hooks');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('.field-error').filter({ hasText: 'must be http:// or https://' }).waitFor();
    assert.equal(await page.getByLabel('Endpoint URL').getAttribute('aria-invalid'), 'true');
    await page.getByLabel('Endpoint URL').fill(receiverUrl);
  });

  test('pauses and resumes', async () => {
    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Webhook paused' }).waitFor();
    await page.getByRole('button', { name: 'Resume', exact: true }).waitFor();
    assert.equal((await api('{ webhook { list { active } } }')).webhook.list[0].active, false);
    await page.getByText('Paused: events are not sent to it').waitFor();
    await page.getByRole('button', { name: 'Resume', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Webhook resumed' }).waitFor();
    assert.equal((await api('{ webhook { list { active } } }')).webhook.list[0].active, true);
  });

  test('rotates the secret: shown once, and the next delivery is signed with the old and the new one', async () => {
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('dialog', { name: 'Rotate the signing secret?' }).getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('region', { name: 'New signing secret' }).waitFor();
    const rotated = await page.getByLabel('The signing secret').inputValue();
    assert.match(rotated, /^whsec_/);
    assert.notEqual(rotated, secret);
    await page.getByRole('button', { name: 'Done, hide the secret' }).click();
    const before = received.length;
    await page.getByRole('button', { name: 'Send ping' }).click();
    await waitFor(() => received.length > before, { timeoutMs: 15_000, message: 'the ping after the rotation' });
    const delivery = received.at(-1)!;
    assert.equal(String(delivery.headers['webhook-signature']).split(' ').length, 2);
    new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>);
    new Webhook(rotated).verify(delivery.body, delivery.headers as Record<string, string>);
  });

  test('deletes the webhook after a confirmation', async () => {
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: `Delete the webhook to ${receiverUrl}?` });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await dialog.getByRole('button', { name: 'Delete webhook' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await page
      .getByRole('status')
      .filter({ hasText: `Webhook to ${receiverUrl} deleted.` })
      .waitFor();
    await page.getByText('No webhooks yet.').waitFor();
    assert.deepEqual((await api('{ webhook { list { id } } }')).webhook.list, []);
  });

  test('an editor has no Webhooks link, and the page says who manages webhooks', async () => {
    await setup.server.bootstrap({ org: 'acme', workspace: 'main', email: 'editor@acme.test', role: 'editor' });
    await setPassword(setup.server, 'editor@acme.test', PASSWORD);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Content Service' }).waitFor();
    await signInThroughPage(page, setup.url, 'editor@acme.test');
    assert.equal(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).count(), 0);
    await page.goto(`${setup.url}/admin#/settings/webhooks`);
    await page
      .getByRole('alert')
      .filter({ hasText: 'Only owners and admins of a workspace manage its webhooks; your role here is editor.' })
      .waitFor();
  });
});
