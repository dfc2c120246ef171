import assert from 'node:assert/strict';
import { test } from 'node:test';
import { needsBoundedHeap } from '../../src/cli/bounded-heap.js';

const argv = (...args: string[]) => ['/usr/bin/node', '/app/bin/content-service.js', ...args];

test('import runs in a bounded-heap worker unless the user chose a heap size; other commands run as they are', () => {
  assert.equal(needsBoundedHeap(argv('import', 'file.csv', '--model', 'product'), {}), true);
  assert.equal(needsBoundedHeap(argv('import', 'file.csv'), { NODE_OPTIONS: '--max-old-space-size=512' }), false);
  for (const command of ['serve', 'export', 'bootstrap', 'token', 'models'])
    assert.equal(needsBoundedHeap(argv(command), {}), false, command);
  assert.equal(needsBoundedHeap(argv(), {}), false);
});
