// The calls of the media library (docs/media.md): a page of assets (searched, of a type), assets by id, the change
// and the delete of one, and an upload: POST /assets as multipart, by XMLHttpRequest so that its progress shows,
// with the session's CSRF header and workspace like every request of the application (api.ts).
import { ApiError, errorOf, getSession, gql, sessionEnded, sessionHeaders } from './api.js';
import { MEDIA_PAGE_SIZE, type Asset, type AssetList, type FocalPoint } from './media-state.js';

export const ASSET_FIELDS = 'id filename mimeType type size width height alt tags focalPoint { x y } access url usage createdAt';

export interface AssetQuery {
  search: string;
  type: string | null;
  offset: number;
  limit?: number;
}

export async function listAssets(query: AssetQuery): Promise<AssetList> {
  const data = await gql<{ asset: { list: AssetList } }>(
    `query AdminAssets($limit: Int, $offset: Int, $search: String, $type: String) {
        asset { list(limit: $limit, offset: $offset, search: $search, type: $type) { total hasMore items { ${ASSET_FIELDS} } } }
      }`,
    {
      limit: query.limit ?? MEDIA_PAGE_SIZE,
      offset: query.offset,
      search: query.search === '' ? null : query.search,
      type: query.type,
    },
  );
  return data.asset.list;
}

/** The workspace's default locale: the alt text the Media page edits. */
export async function loadDefaultLocale(): Promise<string> {
  const data = await gql<{ workspace: { current: { defaultLocale: string } } }>(
    'query AdminDefaultLocale { workspace { current { defaultLocale } } }',
  );
  return data.workspace.current.defaultLocale;
}

/** Aliases in one request: the API allows 30 an operation. */
const IDS_PER_REQUEST = 25;

/** Assets by id (null for one that is gone), in the order of `ids`. */
export async function assetsById(ids: readonly string[]): Promise<Map<string, Asset | null>> {
  const found = new Map<string, Asset | null>();
  const unique = [...new Set(ids)];
  for (let start = 0; start < unique.length; start += IDS_PER_REQUEST) {
    const chunk = unique.slice(start, start + IDS_PER_REQUEST);
    const variables: Record<string, string> = {};
    const parts = chunk.map((id, index) => {
      variables[`id${index}`] = id;
      return `a${index}: get(id: $id${index}) { ${ASSET_FIELDS} }`;
    });
    const data = await gql<{ asset: Record<string, Asset | null> }>(
      `query AdminAssetsById(${chunk.map((_id, index) => `$id${index}: ID!`).join(', ')}) { asset { ${parts.join(' ')} } }`,
      variables,
    );
    chunk.forEach((id, index) => found.set(id, data.asset[`a${index}`] ?? null));
  }
  return found;
}

export interface AssetChange {
  alt?: Record<string, string> | null;
  tags?: string[];
  focalPoint?: FocalPoint | null;
  access?: string;
}

export async function updateAsset(id: string, change: AssetChange): Promise<Asset> {
  const data = await gql<{ asset: { update: Asset } }>(
    `mutation UpdateAsset($input: UpdateAssetInput!) { asset { update(input: $input) { ${ASSET_FIELDS} } } }`,
    { input: { id, ...change } },
  );
  return data.asset.update;
}

/** Deletes an asset; `force` also removes it from the records that hold it (else CONFLICT while they do). */
export async function deleteAsset(id: string, force: boolean): Promise<void> {
  await gql('mutation DeleteAsset($id: ID!, $force: Boolean) { asset { delete(id: $id, force: $force) { deleted } } }', {
    id,
    force,
  });
}

/** An upload under way: its answer, and a way to stop it. */
export interface Upload {
  done: Promise<Asset>;
  abort(): void;
}

function parseBody(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

function sendOnce(file: File, onProgress: (loaded: number, total: number) => void, xhrs: XMLHttpRequest[]): Promise<Asset> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhrs.push(xhr);
    xhr.open('POST', '/assets');
    xhr.withCredentials = true;
    for (const [name, value] of Object.entries(sessionHeaders())) xhr.setRequestHeader(name, value);
    xhr.setRequestHeader('accept', 'application/json');
    xhr.upload.onprogress = (event) => {
      onProgress(event.loaded, event.lengthComputable ? event.total : file.size);
    };
    xhr.onload = () => {
      const body = parseBody(xhr.responseText);
      if (xhr.status === 201 || xhr.status === 200) {
        onProgress(file.size, file.size);
        resolve((body as { asset: Asset }).asset);
        return;
      }
      reject(errorOf(xhr.status, xhr.getResponseHeader('retry-after'), body));
    };
    xhr.onerror = () =>
      reject(new ApiError('The server could not be reached. Check the connection and try again.', 'NETWORK', 0));
    xhr.onabort = () => reject(new ApiError('The upload was stopped.', 'ABORTED', 0));
    const form = new FormData();
    form.append('file', file, file.name);
    xhr.send(form);
  });
}

/** Uploads one file (POST /assets); `onProgress` hears the bytes sent. A stale CSRF token is read again once. */
export function uploadAsset(file: File, onProgress: (loaded: number, total: number) => void): Upload {
  const xhrs: XMLHttpRequest[] = [];
  const done = (async () => {
    try {
      return await sendOnce(file, onProgress, xhrs);
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) sessionEnded();
      if (error instanceof ApiError && error.status === 403 && /CSRF/i.test(error.message) && (await getSession()) !== null) {
        return sendOnce(file, onProgress, xhrs);
      }
      throw error;
    }
  })();
  return { done, abort: () => xhrs.at(-1)?.abort() };
}
