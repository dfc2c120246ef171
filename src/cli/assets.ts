// content-service assets upload <files…>: files into the media library through POST /assets, one after another,
// with a progress bar of the bytes of all the files (on a terminal). Prints each file's asset id and URL.
import { stat } from 'node:fs/promises';
import type { Command } from 'commander';
import { ContentServiceError } from '../client/errors.js';
import {
  connectionOptions,
  fileProblem,
  makeClient,
  parseNonNegativeNumber,
  progressBar,
  runCommand,
  UsageError,
  type ConnectionOptions,
} from './client-options.js';

interface UploadOptions extends ConnectionOptions {
  alt?: string;
  tags?: string;
  quiet?: boolean;
  json?: boolean;
}

export function registerAssets(program: Command): void {
  const assets = program.command('assets').description('The media library: images and files that media fields hold');
  connectionOptions(
    assets
      .command('upload')
      .argument('<files...>', 'files to upload')
      .description(
        'Upload files to the media library (one write of the budget each; HTTP 429 waited out). Prints, per file, ' +
          'its name, asset id and URL (tab-separated; --json: one JSON line per asset). Exit code 0 when every file ' +
          'was uploaded, 1 when any failed (each named on stderr with the reason), 2 for a usage error.',
      )
      .option('--alt <text>', 'alt text for every file: a text for the default locale, or JSON such as {"en":"…"}')
      .option('--tags <tags>', 'tags for every file, separated by commas: summer,red')
      .option('--json', 'print each asset as one JSON line instead of name, id and URL')
      .option('--quiet', 'no progress bar')
      .option(
        '--max-wait <seconds>',
        'longest total wait for the write budget of one upload (default 600)',
        parseNonNegativeNumber,
      ),
  ).action(async (files: string[], options: UploadOptions) => runCommand(() => runUpload(files, options)));
}

/** `--alt`: a JSON object of locale to text, or the text itself. */
function parseAlt(alt: string | undefined): Record<string, string> | string | undefined {
  if (alt === undefined) return undefined;
  if (!alt.trim().startsWith('{')) return alt;
  try {
    const parsed = JSON.parse(alt) as unknown;
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, string>;
  } catch {
    // Refused below.
  }
  throw new UsageError('--alt: expected a text, or a JSON object of locale to text such as {"en":"A red ball"}');
}

/** The size of each file, or why it cannot be uploaded. */
async function sizes(files: readonly string[]): Promise<(number | Error)[]> {
  return Promise.all(
    files.map(async (file) => {
      try {
        const info = await stat(file);
        return info.isFile() ? info.size : new Error('not a file');
      } catch (error) {
        return new Error(fileProblem(error, 'no such file'));
      }
    }),
  );
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

async function runUpload(files: string[], options: UploadOptions): Promise<number> {
  const alt = parseAlt(options.alt);
  const tags = options.tags
    ?.split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
  const client = makeClient(options, {
    onWait: (info) => {
      if (!bar && !options.quiet)
        process.stderr.write(`write budget used up (HTTP 429): waiting ${Math.ceil(info.waitMs / 1000)}s\n`);
    },
  });
  const known = await sizes(files);
  const total = known.reduce<number>((sum, size) => sum + (typeof size === 'number' ? size : 0), 0);
  const bar =
    !options.quiet && process.stderr.isTTY
      ? progressBar(process.stderr, 'upload [{bar}] {percentage}% | {sent} of {size} | {file}')
      : undefined;
  bar?.start(Math.max(1, total), 0, { sent: formatBytes(0), size: formatBytes(total), file: '' });
  let done = 0;
  const failed: string[] = [];
  // Under a progress bar the lines wait for its end, so that the two do not write over each other.
  const printed: string[] = [];
  const print = (line: string) => (bar ? printed.push(line) : process.stdout.write(`${line}\n`));
  for (const [index, file] of files.entries()) {
    const size = known[index]!;
    if (size instanceof Error) {
      failed.push(`${file}: ${size.message}`);
      continue;
    }
    try {
      const asset = await client.uploadAsset(
        { path: file },
        {
          ...(alt !== undefined ? { alt } : {}),
          ...(tags !== undefined ? { tags } : {}),
          onProgress: ({ loaded }) =>
            bar?.update(done + loaded, { sent: formatBytes(done + loaded), size: formatBytes(total), file }),
        },
      );
      print(options.json ? JSON.stringify({ file, ...asset }) : `${file}\t${asset.id}\t${asset.url}`);
    } catch (error) {
      failed.push(`${file}: ${error instanceof ContentServiceError || error instanceof Error ? error.message : String(error)}`);
    }
    done += size;
    bar?.update(done, { sent: formatBytes(done), size: formatBytes(total), file });
  }
  bar?.stop();
  for (const line of printed) process.stdout.write(`${line}\n`);
  for (const line of failed) process.stderr.write(`failed: ${line}\n`);
  const uploaded = files.length - failed.length;
  process.stderr.write(
    failed.length === 0
      ? `Uploaded ${uploaded} file${uploaded === 1 ? '' : 's'} (${formatBytes(total)})\n`
      : `FAILED: ${failed.length} of ${files.length} files not uploaded\n`,
  );
  return failed.length === 0 ? 0 : 1;
}
