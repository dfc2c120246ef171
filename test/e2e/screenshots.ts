// `npm run screenshots`: every page of the admin application at 1440 px and at a phone's 390 px, as PNGs in
// docs/screenshots/ (`<page>-1440.png`, `<page>-390.png`, shown in docs/admin.md). Same setup as the end-to-end test: a real server on a temporary database, the system Chromium.
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { dataOf, gql } from '../support/client.js';
import { REPO_ROOT } from '../support/server.js';
import { chromiumMissing, closeBrowser, EMAIL, PASSWORD, startAdminSetup, type AdminSetup } from './support.js';

const OUT = join(REPO_ROOT, 'docs', 'screenshots');

async function api(setup: AdminSetup, query: string, variables?: Record<string, unknown>): Promise<any> {
  return dataOf(
    await gql(
      `${setup.url}/graphql`,
      { token: setup.workspace.token, workspaceId: setup.workspace.workspaceId },
      query,
      variables,
    ),
  );
}

/** A catalog to look at: categories, and products with every field type, enough of them for paging. */
async function seed(setup: AdminSetup): Promise<{ productId: string }> {
  const create = 'mutation ($input: CreateModelDefinitionInput!) { model { create(input: $input) { id } } }';
  const category = await api(setup, create, {
    input: {
      name: 'Category',
      slug: 'category',
      displayField: 'name',
      deliveryAccess: 'public',
      fields: [
        { key: 'name', label: 'Name', type: 'translatable', required: true },
        { key: 'slug', label: 'Slug', type: 'text', required: true },
      ],
    },
  });
  const categoryId = category.model.create.id;
  await api(setup, create, {
    input: {
      name: 'Article',
      slug: 'article',
      description: 'Editorial content for the shop blog',
      displayField: 'headline',
      fields: [
        { key: 'headline', label: 'Headline', type: 'text', required: true },
        { key: 'body', label: 'Body', type: 'text' },
        { key: 'publishedAt', label: 'Published at', type: 'date' },
      ],
    },
  });
  const product = await api(setup, create, {
    input: {
      name: 'Product',
      slug: 'product',
      description: 'The shop catalog',
      displayField: 'title',
      deliveryAccess: 'public',
      product: { enabled: true, skuField: 'sku', priceField: 'price' },
      fields: [
        { key: 'title', label: 'Title', type: 'text', required: true },
        { key: 'sku', label: 'SKU', type: 'text', required: true },
        { key: 'price', label: 'Price', type: 'number' },
        { key: 'inStock', label: 'In stock', type: 'boolean' },
        { key: 'released', label: 'Released', type: 'date' },
        { key: 'name', label: 'Name', type: 'translatable' },
        { key: 'category', label: 'Category', type: 'relation', relationTo: 'model:category' },
        {
          key: 'dimensions',
          label: 'Dimensions',
          type: 'object',
          fields: [
            { key: 'width', label: 'Width (cm)', type: 'number' },
            { key: 'height', label: 'Height (cm)', type: 'number' },
          ],
        },
      ],
    },
  });
  const productId = product.model.create.id;
  const importRows =
    'mutation ($input: ImportModelRecordsInput!) { record { import(input: $input) { importedCount errors { row message } } } }';
  await api(setup, importRows, {
    input: {
      modelId: categoryId,
      rows: [
        { name: { en: 'Balls', pl: 'Piłki' }, slug: 'balls' },
        { name: { en: 'Gloves', pl: 'Rękawice' }, slug: 'gloves' },
        { name: { en: 'Shoes', pl: 'Buty' }, slug: 'shoes' },
      ],
    },
  });
  const kinds = [
    'Match ball',
    'Training ball',
    'Keeper gloves',
    'Running shoes',
    'Shin guards',
    'Water bottle',
    'Training cone',
    'Goal net',
  ];
  const rows = Array.from({ length: 128 }, (_, index) => {
    const kind = kinds[index % kinds.length]!;
    return {
      title: `${kind} ${Math.floor(index / kinds.length) + 1}`,
      sku: `${kind.split(' ')[0]!.toUpperCase()}-${String(index + 1).padStart(4, '0')}`,
      price: Math.round((9.99 + ((index * 37) % 140)) * 100) / 100,
      inStock: index % 3 !== 0,
      released: `2024-${String((index % 12) + 1).padStart(2, '0')}-15`,
      name: { en: kind, pl: `${kind} (pl)` },
    };
  });
  await api(setup, importRows, { input: { modelId: productId, rows } });
  return { productId };
}

const WIDE = { width: 1440, height: 900 };
const NARROW = { width: 390, height: 844 };

async function shot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  // No caret or focus ring blinking into the picture; the page has settled when its heading is there.
  await page.locator('h1').first().waitFor();
  await page.screenshot({
    path: join(OUT, `${name}-1440.png`),
    fullPage: options.fullPage ?? false,
    caret: 'hide',
    animations: 'disabled',
  });
  // A phone scrolls: the whole page, with the header folded behind its Menu button.
  await page.setViewportSize(NARROW);
  await page.screenshot({ path: join(OUT, `${name}-390.png`), fullPage: true, caret: 'hide', animations: 'disabled' });
  await page.setViewportSize(WIDE);
  console.log(`docs/screenshots/${name}-1440.png, ${name}-390.png`);
}

async function main(): Promise<void> {
  const missing = chromiumMissing();
  if (missing) throw new Error(missing);
  mkdirSync(OUT, { recursive: true });
  // The server's own default write budget, as a fresh `npm start` shows it.
  // Webhooks may go to the receiver below, on 127.0.0.1.
  const setup = await startAdminSetup({
    viewport: WIDE,
    server: { omit: ['--write-budget'], env: { LOG_LEVEL: 'warn', WEBHOOK_ALLOW_PRIVATE: 'true' } },
  });
  const page = setup.page;
  // A webhook receiver that takes every event but record.deleted (answered 503: retried later), for the delivery log.
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const type = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string }).type;
      response.writeHead(type === 'record.deleted' ? 503 : 204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  try {
    const { productId } = await seed(setup);

    await page.goto(`${setup.url}/admin`);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await shot(page, 'sign-in');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Models' }).waitFor();
    await shot(page, 'models');

    await page.goto(`${setup.url}/admin#/models/${productId}/edit`);
    await page.getByRole('heading', { level: 1, name: 'Edit model Product' }).waitFor();
    await shot(page, 'model-editor', { fullPage: true });

    // The table filtered by two conditions and sorted by price, as the filter bar and a column header leave it.
    const filter = JSON.stringify({ inStock: { $eq: true }, title: { $contains: 'ball' } });
    await page.goto(
      `${setup.url}/admin#/models/${productId}/records?sort=price_asc&limit=20&filter=${encodeURIComponent(filter)}`,
    );
    await page.getByText(/^Records 1–20 of \d+$/).waitFor();
    await shot(page, 'records');
    // Two rows selected: the bulk delete button says how many.
    await page.locator('table tbody input[type="checkbox"]').nth(0).check();
    await page.locator('table tbody input[type="checkbox"]').nth(1).check();
    await shot(page, 'records-selected');

    await page.getByRole('link', { name: 'New record' }).click();
    await page.getByLabel('Title').fill('Match ball Pro');
    await page.getByLabel('SKU').fill('MATCH-0001');
    await page.getByLabel('Price').fill('149.99');
    await page.getByLabel('In stock').selectOption('true');
    await page.locator('[data-field="name"] input').nth(1).fill('Match ball Pro');
    await page.getByLabel('Category', { exact: true }).selectOption({ label: 'Balls' });
    await page.getByLabel('Width (cm)').fill('22');
    await page.getByRole('button', { name: 'Create record' }).click();
    await page.locator('[data-field="sku"] .field-error').waitFor();
    await page.getByRole('heading', { level: 1 }).scrollIntoViewIfNeeded();
    await shot(page, 'record-form-error', { fullPage: true });

    await page.goto(`${setup.url}/admin#/models/${productId}/import`);
    await page.getByRole('heading', { level: 1, name: 'Import CSV into Product' }).waitFor();
    const csv = [
      'Title,SKU,Price,In stock,name.en,name.pl,Released,notes',
      'Indoor ball,INDOOR-1,39.90,yes,Indoor ball,Piłka halowa,2024-09-01,new',
      'Futsal ball,FUTSAL-1,44.5,no,Futsal ball,Piłka do futsalu,2024-10-01,',
      'Beach ball,BEACH-1,twelve,yes,Beach ball,Piłka plażowa,2024-06-01,price typo',
      'Match ball copy,MATCH-0001,99,yes,Match ball,Piłka meczowa,2024-01-15,duplicate SKU',
    ].join('\r\n');
    await page.getByLabel('CSV file').setInputFiles({ name: 'new-products.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('heading', { name: 'Map the columns of new-products.csv' }).waitFor();
    await shot(page, 'import-preview', { fullPage: true });
    await page.getByRole('button', { name: 'Import 4 rows' }).click();
    await page.getByRole('heading', { name: 'Import finished with errors' }).waitFor();
    await shot(page, 'import-errors');

    await page.getByRole('link', { name: 'Workspace', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Workspace' }).waitFor();
    await shot(page, 'workspace');

    await page.getByRole('link', { name: 'API tokens', exact: true }).click();
    await page.getByLabel('Name').fill('nightly import');
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.getByRole('heading', { name: 'Token nightly import created' }).waitFor();
    await page.getByRole('heading', { level: 1 }).scrollIntoViewIfNeeded();
    await shot(page, 'tokens');

    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/content-changed`;
    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    await page.getByLabel('Endpoint URL').fill(hookUrl);
    await page.getByLabel('Record created').check();
    await page.getByLabel('Record updated').check();
    await page.getByLabel('Record deleted').check();
    await page.getByLabel('Description (optional)').fill('Storefront rebuild');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await page.getByRole('heading', { name: `Webhook to ${hookUrl} created` }).waitFor();
    await page.getByRole('heading', { level: 1 }).scrollIntoViewIfNeeded();
    await shot(page, 'webhooks', { fullPage: true });

    const list = await api(setup, 'query ($id: ID!) { record { list(modelId: $id, limit: 3) { items { id } } } }', {
      id: productId,
    });
    const [first, second] = list.record.list.items as { id: string }[];
    await api(setup, 'mutation ($input: PatchModelRecordInput!) { record { patch(input: $input) { id } } }', {
      input: { id: first!.id, data: { price: 24.99 } },
    });
    await api(setup, 'mutation ($id: ID!) { record { delete(id: $id) { deleted } } }', { id: second!.id });
    await page.getByRole('link', { name: hookUrl }).click();
    await page.getByRole('button', { name: 'Send ping' }).click();
    await page.locator('table.deliveries tbody tr').filter({ hasText: 'webhook.ping' }).getByText('Succeeded').waitFor();
    await page.locator('table.deliveries tbody tr').filter({ hasText: 'record.deleted' }).getByText('503').waitFor();
    await shot(page, 'webhook-deliveries', { fullPage: true });

    await page.getByRole('link', { name: 'Members', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Members' }).waitFor();
    await page.getByLabel(/^Email/).fill('new.editor@acme.test');
    await page.getByLabel('Role', { exact: true }).selectOption('editor');
    await page.getByRole('button', { name: 'Add member' }).click();
    await page.getByRole('heading', { name: 'new.editor@acme.test added as editor' }).waitFor();
    await page.getByRole('heading', { level: 1 }).scrollIntoViewIfNeeded();
    await shot(page, 'members', { fullPage: true });

    // The one-time sign-in link, opened: the new member chooses a password.
    const link = await page.getByLabel('The sign-in link').inputValue();
    await page.goto(link);
    await page.getByRole('heading', { level: 1 }).waitFor();
    await shot(page, 'welcome');
  } finally {
    await setup.close();
    await closeBrowser();
    receiver.closeAllConnections();
    receiver.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
