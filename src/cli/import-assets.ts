// `content-service import --assets-dir DIR`: the cells of a CSV's media columns name files under DIR (one path, or
// several separated by `|` or as a JSON array for a multiple field, as the other multi-value cells). Each distinct
// file is uploaded once and the cell becomes its asset id before the row is converted; a path that leaves DIR, or a
// file that cannot be uploaded, fails the row naming its line and column.
import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { ContentClient } from '../client/client.js';
import { idList } from '../client/cells.js';
import type { FieldDefinition } from '../client/types.js';
import type { InputRow } from './client-sources.js';

/** A row whose media cells were resolved: the cells to convert (ids in place of paths), or why the row fails. */
export interface AssetRow extends InputRow {
  assetCells?: (string | null)[];
  assetError?: string;
}

interface MediaColumn {
  index: number;
  name: string;
  field: FieldDefinition;
}

export interface AssetsDirResult {
  rows: AsyncIterable<AssetRow>;
  /** Distinct files uploaded (or, in a dry run, found) so far; failed ones not counted. */
  uploaded: () => number;
}

/** The media columns of a CSV header (by field key, as csvColumns maps them). */
export function mediaColumns(header: readonly (string | null)[], fields: readonly FieldDefinition[]): MediaColumn[] {
  const media = new Map(fields.filter((field) => field.type === 'media').map((field) => [field.key, field]));
  const columns: MediaColumn[] = [];
  header.forEach((raw, index) => {
    const name = (raw ?? '').trim();
    const field = media.get(name);
    if (field) columns.push({ index, name, field });
  });
  return columns;
}

/** Rows with their media cells uploaded (a dry run checks the files and uploads nothing). */
export function withAssets(
  rows: AsyncIterable<InputRow>,
  columns: readonly MediaColumn[],
  dir: string,
  client: ContentClient,
  dryRun: boolean,
): AssetsDirResult {
  const root = resolve(dir);
  const uploads = new Map<string, Promise<string>>();
  let done = 0;
  const rootReal = realpath(root);
  rootReal.catch(() => undefined);

  const assetId = (path: string): Promise<string> => {
    const target = resolve(root, path);
    let id = uploads.get(target);
    if (!id) {
      id = (async () => {
        const real = await inside(root, await rootReal, target, path);
        const id = dryRun ? `dry-run:${relative(root, real)}` : (await client.uploadAsset({ path: real })).id;
        done += 1;
        return id;
      })();
      id.catch(() => undefined);
      uploads.set(target, id);
    }
    return id;
  };

  async function* resolved(): AsyncGenerator<AssetRow> {
    for await (const row of rows) {
      const cells = [...(row.cells ?? [])];
      const problems: string[] = [];
      for (const column of columns) {
        const cell = cells[column.index] ?? null;
        if (cell === null || cell.trim() === '') continue;
        const where = `line ${row.line}, column ${column.index + 1} (${column.name})`;
        try {
          const paths = column.field.multiple === true ? idList(cell, cell.trim(), 'file paths') : [cell.trim()];
          const ids = await Promise.all(paths.map(assetId));
          cells[column.index] = column.field.multiple === true ? JSON.stringify(ids) : ids[0]!;
        } catch (error) {
          problems.push(`${where}: ${(error as Error).message}`);
        }
      }
      yield problems.length > 0 ? { ...row, assetError: problems.join('; ') } : { ...row, assetCells: cells };
    }
  }
  return { rows: resolved(), uploaded: () => done };
}

/** The file's real path, when it is a file inside the directory (symbolic links followed); else why not. */
async function inside(root: string, rootReal: string, target: string, given: string): Promise<string> {
  const lexical = relative(root, target);
  if (isAbsolute(given) || lexical === '' || lexical.startsWith(`..${sep}`) || lexical === '..' || isAbsolute(lexical)) {
    throw new Error(`${JSON.stringify(given)}: refused, the path leaves --assets-dir (give a path inside ${root})`);
  }
  let real: string;
  try {
    real = await realpath(target);
    if (!(await stat(real)).isFile()) throw Object.assign(new Error('not a file'), { code: 'EISDIR' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'not a file' : (error as Error).message;
    throw new Error(`${JSON.stringify(given)}: ${reason} in --assets-dir ${root}`, { cause: error });
  }
  const fromRoot = relative(rootReal, real);
  if (fromRoot.startsWith(`..${sep}`) || fromRoot === '..' || isAbsolute(fromRoot)) {
    throw new Error(`${JSON.stringify(given)}: refused, the path leads out of --assets-dir through a symbolic link`);
  }
  return real;
}
