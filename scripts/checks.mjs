// `npm test`'s checks before the tests: the typecheck and the lint (ESLint, the layer rules, the formatter) run side
// by side, each in a process of its own, since each is one single-threaded program and the machines that run the
// suite have two cores or more. Each one's output is printed whole when it ends, so the two never interleave.
import { spawn } from 'node:child_process';

const CHECKS = [
  ['typecheck', ['run', 'typecheck', '--silent']],
  ['lint', ['run', 'lint', '--silent']],
];

function runCheck([name, args]) {
  return new Promise((resolve) => {
    const child = spawn(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    child.on('close', (code) => {
      if (output.trim() !== '') process.stdout.write(`${output.trimEnd()}\n`);
      if (code !== 0) process.stderr.write(`npm run ${name} failed (exit status ${code ?? 'none'})\n`);
      resolve(code === 0);
    });
  });
}

const passed = await Promise.all(CHECKS.map(runCheck));
process.exit(passed.every(Boolean) ? 0 : 1);
