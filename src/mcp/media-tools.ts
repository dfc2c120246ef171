// The tools of the media library: upload_media (the bytes in base64, or a local path when the server runs over
// stdio) and list_media. Each is one call of the SDK (uploadAsset, listAssets).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { AssetSource } from '../client/assets.js';
import { clientFor, withoutUndefined, type McpOptions } from './context.js';
import { answer, ArgumentError, run } from './results.js';
import { listMediaArguments, toolArguments, uploadMediaArguments } from './schemas.js';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The bytes of `content`: base64 (standard or URL-safe, line breaks allowed), or a `data:…;base64,` URL. */
export function decodeBase64(content: string): Uint8Array {
  const text = content
    .replace(/^data:[^,]*;base64,/, '')
    .replace(/\s+/g, '')
    .replaceAll('-', '+')
    .replaceAll('_', '/');
  if (!BASE64.test(text) || text.length % 4 === 1) {
    throw new ArgumentError('content: not base64 (the file\'s bytes encoded as base64, such as "iVBORw0KGgo…")');
  }
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length === 0) throw new ArgumentError('content: the file is empty');
  return bytes;
}

export function registerMediaTools(server: McpServer, options: McpOptions): void {
  const log = options.log ?? (() => undefined);
  const overStdio = options.transport === 'stdio';

  server.registerTool(
    'upload_media',
    {
      title: 'Upload a file to the media library',
      description:
        'Uploads one image or file and answers the asset {id, url, filename, mimeType, type, size, width, height, ' +
        'alt, tags, …}: put its id in a media field of a record. Give content (base64) with filename' +
        (overStdio ? ', or path (a file on this machine)' : '') +
        '. The type is detected from the bytes; the server refuses files over its upload limit (default 50 MB). ' +
        'Needs an editor token or above; one write of the budget.',
      inputSchema: toolArguments(uploadMediaArguments),
    },
    (args, extra) =>
      run(async () => {
        const { content, path, filename, alt, tags } = args;
        if (content !== undefined && path !== undefined) throw new ArgumentError('content: give content or path, not both');
        let file: AssetSource;
        if (path !== undefined) {
          if (!overStdio) {
            throw new ArgumentError(
              'path: only when the MCP server runs over stdio on your machine (content-service mcp); over HTTP send ' +
                'the bytes as content (base64) with filename',
            );
          }
          file = { path };
        } else if (content !== undefined) {
          if (filename === undefined) throw new ArgumentError('filename: required with content (such as "ball.jpg")');
          file = decodeBase64(content);
        } else {
          throw new ArgumentError('content: required (the file as base64, with filename)' + (overStdio ? ', or path' : ''));
        }
        const asset = await clientFor(options, extra).uploadAsset(file, withoutUndefined({ filename, alt, tags }));
        return answer(asset);
      }, log),
  );

  server.registerTool(
    'list_media',
    {
      title: 'List the media library',
      description:
        'One page of the uploaded images and files, newest first: {total, hasMore, items: [asset]} with each ' +
        "asset's id (for media fields), url, filename, mimeType, type, size, width, height, alt, tags and usage " +
        '(how many records hold it). Filter by search (filename, tag or alt text), type and tags.',
      inputSchema: toolArguments(listMediaArguments),
      annotations: { readOnlyHint: true },
    },
    (args, extra) => run(async () => answer(await clientFor(options, extra).listAssets(withoutUndefined(args))), log),
  );
}
