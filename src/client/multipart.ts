// multipart/form-data bodies for `POST /assets`, made by the SDK itself rather than by FormData, so that an upload
// can report its progress and stream a file of any size with its length known up front. Browser-safe: Blob,
// ReadableStream and TextEncoder only, nothing of Node.

/** The file part: a Blob (size known, can be read again) or a stream (read once; size when the caller knows it). */
export type MultipartFile =
  | { kind: 'blob'; blob: Blob; filename: string }
  | { kind: 'stream'; stream: ReadableStream<Uint8Array>; filename: string; size: number | undefined };

export interface MultipartBody {
  body: Blob | ReadableStream<Uint8Array>;
  contentType: string;
  /** Bytes of the whole body, when the file's size is known. */
  length: number | undefined;
}

const encoder = new TextEncoder();

/** A boundary no file is likely to hold: 24 random bytes in hex. */
function boundary(): string {
  const bytes = new Uint8Array(24);
  globalThis.crypto.getRandomValues(bytes);
  return `----content-service-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

/** A name or filename inside a quoted header parameter, escaped as browsers escape them (WHATWG HTML). */
function quoted(text: string): string {
  return text.replaceAll('\r', '%0D').replaceAll('\n', '%0A').replaceAll('"', '%22');
}

/**
 * The body of a form with text `fields` (in order) and then the file in a part named `file`. `onBytes` is told
 * the file's bytes sent so far as the body is read (a stream body), and the body is a stream whenever it is given.
 */
export function multipartBody(
  fields: readonly [string, string][],
  file: MultipartFile,
  onBytes?: (sent: number) => void,
): MultipartBody {
  const mark = boundary();
  let head = '';
  for (const [name, value] of fields) {
    head += `--${mark}\r\ncontent-disposition: form-data; name="${quoted(name)}"\r\n\r\n${value}\r\n`;
  }
  head +=
    `--${mark}\r\ncontent-disposition: form-data; name="file"; filename="${quoted(file.filename)}"\r\n` +
    'content-type: application/octet-stream\r\n\r\n';
  const before = encoder.encode(head);
  const after = encoder.encode(`\r\n--${mark}--\r\n`);
  const contentType = `multipart/form-data; boundary=${mark}`;
  const size = file.kind === 'blob' ? file.blob.size : file.size;
  const length = size === undefined ? undefined : before.length + size + after.length;
  if (file.kind === 'blob' && !onBytes) {
    return { body: new Blob([before, file.blob, after]), contentType, length };
  }
  const source = file.kind === 'blob' ? file.blob.stream() : file.stream;
  return { body: framed(before, source, after, onBytes), contentType, length };
}

/** `before`, the file's bytes (counted), then `after`, as one stream read as the request is sent. */
function framed(
  before: Uint8Array,
  source: ReadableStream<Uint8Array>,
  after: Uint8Array,
  onBytes: ((sent: number) => void) | undefined,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let state: 'head' | 'file' | 'done' = 'head';
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (state === 'head') {
        state = 'file';
        controller.enqueue(before);
        return;
      }
      if (state === 'done') return;
      const { done, value } = await reader.read();
      if (done) {
        state = 'done';
        controller.enqueue(after);
        controller.close();
        return;
      }
      sent += value.byteLength;
      onBytes?.(sent);
      controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
