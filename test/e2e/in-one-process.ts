// Every browser test file (test/e2e/*.test.ts) in one process, so that the suite launches Chromium once: the files
// share it (support.ts), each with a browser context and a server of its own, one file after another. `npm test`
// runs this file instead of the files one by one (scripts/run-tests.mjs); each file still runs alone as well
// (`node scripts/run-tests.mjs test/e2e/forms.test.ts`).
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { test } from 'node:test';

import './admin-app.test.js';
import './drafts.test.js';
import './forms.test.js';
import './graphiql.test.js';
import './media.test.js';
import './members.test.js';
import './narrow-and-banners.test.js';
import './number-input.test.js';
import './record-form-return.test.js';
import './record-history.test.js';
import './records-filter.test.js';
import './records-relation-filter.test.js';
import './records-tools.test.js';
import './schedules.test.js';
import './webhooks.test.js';

const IMPORTED = [
  'admin-app.test.ts',
  'drafts.test.ts',
  'forms.test.ts',
  'graphiql.test.ts',
  'media.test.ts',
  'members.test.ts',
  'narrow-and-banners.test.ts',
  'number-input.test.ts',
  'record-form-return.test.ts',
  'record-history.test.ts',
  'records-filter.test.ts',
  'records-relation-filter.test.ts',
  'records-tools.test.ts',
  'schedules.test.ts',
  'webhooks.test.ts',
];

test('every browser test file is imported here', () => {
  const files = readdirSync(new URL('.', import.meta.url)).filter((name) => name.endsWith('.test.ts'));
  assert.deepEqual(files.sort(), [...IMPORTED].sort());
});
