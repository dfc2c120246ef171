// `node --import tsx test/e2e/large-table.ts [records]`: how fast the records table of a big model opens in
// the browser (default 100,000 records; the goal is under a second). Not part of `npm test`: loading the
// records takes a while on a small machine. Prints the times; exits 1 when a page took a second or more.
import { dataOf, gql } from '../support/client.js';
import { chromiumMissing, signInThroughPage, startAdminSetup, type AdminSetup } from './support.js';

const RECORDS = Number(process.argv[2] ?? 100_000);
const GOAL_MS = 1000;

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

async function main(): Promise<void> {
  const missing = chromiumMissing();
  if (missing) throw new Error(missing);
  const setup = await startAdminSetup();
  const page = setup.page;
  try {
    const created = await api(
      setup,
      'mutation ($input: CreateModelDefinitionInput!) { model { create(input: $input) { id } } }',
      {
        input: {
          name: 'Product',
          slug: 'product',
          displayField: 'title',
          product: { enabled: true, skuField: 'sku', priceField: 'price' },
          fields: [
            { key: 'title', label: 'Title', type: 'text', required: true },
            { key: 'sku', label: 'SKU', type: 'text', required: true },
            { key: 'price', label: 'Price', type: 'number' },
            { key: 'name', label: 'Name', type: 'translatable' },
          ],
        },
      },
    );
    const modelId: string = created.model.create.id;
    const started = Date.now();
    for (let offset = 0; offset < RECORDS; offset += 1000) {
      const rows = Array.from({ length: Math.min(1000, RECORDS - offset) }, (_, index) => ({
        title: `Product ${offset + index + 1}`,
        sku: `SKU-${offset + index + 1}`,
        price: ((offset + index) % 500) + 0.99,
        name: { en: `Product ${offset + index + 1}`, pl: `Produkt ${offset + index + 1}` },
      }));
      await api(setup, 'mutation ($input: ImportModelRecordsInput!) { record { import(input: $input) { importedCount } } }', {
        input: { modelId, rows },
      });
    }
    console.log(`loaded ${RECORDS.toLocaleString('en')} records in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    await signInThroughPage(page, setup.url);
    const total = RECORDS.toLocaleString('en-US');
    const measure = async (what: string, open: () => Promise<unknown>, shown: string) => {
      const start = Date.now();
      await open();
      await page.getByText(shown).waitFor();
      await page.locator('table.records tbody tr').nth(49).waitFor();
      const ms = Date.now() - start;
      console.log(`${what}: ${ms} ms`);
      return ms;
    };
    const times = [
      // A cold load of the application, straight to the table (page, scripts, session, model, first page).
      await measure(
        'full page load to the first 50 rows',
        () => page.goto(`${setup.url}/admin#/models/${modelId}/records`),
        `Records 1–50 of ${total}`,
      ),
      await measure('next page', () => page.getByRole('link', { name: 'Next page' }).click(), `Records 51–100 of ${total}`),
      await measure(
        'last page',
        async () => {
          await page.getByLabel('Page', { exact: true }).fill(String(Math.ceil(RECORDS / 50)));
          await page.getByRole('button', { name: 'Go' }).click();
        },
        `Records ${((Math.ceil(RECORDS / 50) - 1) * 50 + 1).toLocaleString('en-US')}–${total} of ${total}`,
      ),
      await measure(
        'sort by update time',
        () => page.getByRole('link', { name: /^Updated/ }).click(),
        `Records 1–50 of ${total}`,
      ),
      await measure(
        'from the models list',
        async () => {
          await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Models' }).click();
          await page.getByRole('link', { name: 'Product', exact: true }).click();
        },
        `Records 1–50 of ${total}`,
      ),
    ];
    const slowest = Math.max(...times);
    console.log(`slowest: ${slowest} ms (goal: under ${GOAL_MS} ms)`);
    if (slowest >= GOAL_MS) process.exitCode = 1;
  } finally {
    await setup.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
