// content-service export --model SLUG [--format jsonl|csv] [--out FILE]
import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import type { Command } from 'commander';
import { stringify } from 'csv-stringify/sync';
import { dataToCsvRow, exportColumns } from '../client/cells.js';
import { isPlainObject } from '../shared/json.js';
import { ContentServiceError } from '../client/errors.js';
import type { TimestampSort } from '../client/types.js';
import {
  connectionOptions,
  makeClient,
  ProgressReporter,
  runCommand,
  UsageError,
  type ConnectionOptions,
} from './client-options.js';

interface ExportOptions extends ConnectionOptions {
  model: string;
  format?: string;
  out?: string;
  sort?: string;
  quiet?: boolean;
}

const SORTS = ['createdAt_asc', 'createdAt_desc', 'updatedAt_asc', 'updatedAt_desc'];

function write(out: Writable, text: string): Promise<void> | undefined {
  if (out.write(text)) return undefined;
  return new Promise((resolve) => out.once('drain', resolve));
}

export function registerExport(program: Command): void {
  connectionOptions(
    program
      .command('export')
      .description(
        'Write every record of a model (its data), in creation order, as JSON Lines (one data object per line) or CSV ' +
          '(header row; a translatable field as one column per locale, title.en). What it writes, import reads back.',
      )
      .requiredOption('--model <slug>', 'slug of the model')
      .option('--format <format>', 'jsonl or csv (default: from --out, else jsonl)')
      .option('--out <file>', 'file to write (default: stdout)')
      .option('--sort <sort>', `order: ${SORTS.join(', ')} (default createdAt_asc)`)
      .option('--quiet', 'no progress output'),
  ).action(async (options: ExportOptions) => runCommand(() => runExport(options)));
}

async function runExport(options: ExportOptions): Promise<number> {
  const format = options.format ?? (options.out?.toLowerCase().endsWith('.csv') ? 'csv' : 'jsonl');
  if (format !== 'jsonl' && format !== 'csv') throw new UsageError(`--format: must be jsonl or csv, got "${format}"`);
  const sort = (options.sort ?? 'createdAt_asc') as TimestampSort;
  if (!SORTS.includes(sort)) throw new UsageError(`--sort: must be one of ${SORTS.join(', ')}`);
  const client = makeClient(options);
  const model = await client.findModel(options.model).catch((error: unknown) => {
    if (error instanceof ContentServiceError && error.code === 'NOT_FOUND') throw new UsageError(error.message);
    throw error;
  });
  const total = (await client.listRecords(model.id, { limit: 1 })).total;
  let done = 0;
  const progress = new ProgressReporter({
    label: 'export',
    position: () => ({ done, total }),
    quiet: options.quiet || !options.out,
    rows: () => done,
  });
  const out: Writable = options.out ? createWriteStream(options.out) : process.stdout;
  try {
    if (format === 'jsonl') {
      for await (const record of client.listAll(model.id, { sort })) {
        await write(out, JSON.stringify(record.data) + '\n');
        done += 1;
      }
    } else {
      // The columns of a translatable field are its locales: a first pass finds them (constant memory).
      const locales = new Map<string, Set<string>>();
      const translatable = model.fields.filter((field) => field.type === 'translatable');
      if (translatable.length > 0) {
        for await (const record of client.listAll(model.id, { sort })) {
          for (const field of translatable) {
            const value = record.data[field.key];
            if (!isPlainObject(value)) continue;
            let set = locales.get(field.key);
            if (!set) locales.set(field.key, (set = new Set()));
            for (const locale of Object.keys(value)) set.add(locale);
          }
        }
      }
      const columns = exportColumns(model.fields, locales);
      await write(out, stringify([columns.map((column) => column.name)]));
      for await (const record of client.listAll(model.id, { sort })) {
        for (const field of translatable) {
          const value = record.data[field.key];
          if (isPlainObject(value) && Object.keys(value).some((locale) => !locales.get(field.key)?.has(locale))) {
            process.stderr.write(
              `warning: record ${record.id} got a new locale in "${field.key}" during the export; that value is not in the file\n`,
            );
          }
        }
        await write(out, stringify([dataToCsvRow(record.data, columns)], { quoted_match: /^$/ }));
        done += 1;
      }
    }
  } finally {
    progress.stop();
    if (options.out)
      await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  }
  if (options.out) process.stderr.write(`Exported ${done} records of model ${model.slug} to ${options.out} (${format})\n`);
  return 0;
}
