#!/usr/bin/env node
import { needsBoundedHeap, runWithBoundedHeap } from '../dist/cli/bounded-heap.js';

if (needsBoundedHeap(process.argv)) {
  process.exitCode = await runWithBoundedHeap(process.argv);
} else {
  const { runCli } = await import('../dist/cli/main.js');
  runCli(process.argv).catch((error) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  });
}
