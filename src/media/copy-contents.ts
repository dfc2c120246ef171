// `content-service copy --from-storage A --to-storage B`: the stored bytes of every asset the copied database
// names, moved from one storage to another (a local directory to S3, say). Variants are not copied: the target
// renders them again on first request. Each content passes through a local temporary file, so memory stays flat.
import { mkdtemp, rm } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { AssetStore, StoredContent } from '../store/store.js';
import { contentKey, type Storage } from './storage.js';

const PAGE = 500;

export interface ContentsCopy {
  copied: number;
  /** Already in the target (a resumed copy, or content shared with an earlier copy). */
  present: number;
  /** Named by an asset but not in the source storage. */
  missing: StoredContent[];
}

export async function copyContents(
  assets: Pick<AssetStore, 'contents'>,
  from: Storage,
  to: Storage,
  onContent: (done: number) => void = () => undefined,
): Promise<ContentsCopy> {
  const result: ContentsCopy = { copied: 0, present: 0, missing: [] };
  const dir = await mkdtemp(join(tmpdir(), 'content-service-copy-'));
  try {
    let after: StoredContent | null = null;
    for (;;) {
      const page = await assets.contents(after, PAGE);
      for (const content of page) {
        await copyOne(content, from, to, join(dir, 'content'), result);
        onContent(result.copied + result.present + result.missing.length);
      }
      if (page.length < PAGE) return result;
      after = page[page.length - 1]!;
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function copyOne(content: StoredContent, from: Storage, to: Storage, path: string, result: ContentsCopy) {
  const key = contentKey(content.workspaceId, content.sha256);
  if (await to.head(key)) {
    result.present += 1;
    return;
  }
  const source = await from.read(key);
  if (!source) {
    result.missing.push(content);
    return;
  }
  await pipeline(source, createWriteStream(path));
  await to.putFile(key, path, content.mimeType);
  result.copied += 1;
}
