// `COPY … FROM STDIN` over the pg client's own connection, without pg-copy-streams: a query object the client
// runs like any other (pg's Submittable) that sends the statement, the rows as one CopyData message and CopyDone
// in one write. The rows go without waiting for the server's CopyInResponse, so the next batch is prepared while
// the server takes this one; a server that refused the statement ignores the copy messages that follow (the
// protocol says so), and answers with the error.
import type pg from 'pg';
import type { Value } from './side.js';

interface CopyConnection {
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
}

class CopyIn implements pg.Submittable {
  private error: Error | null = null;

  constructor(
    private readonly text: string,
    private readonly data: Buffer,
    private readonly settle: (error: Error | null) => void,
  ) {}

  submit(connection: pg.Connection): void {
    const copy = connection as unknown as CopyConnection;
    copy.query(this.text);
    copy.sendCopyFromChunk(this.data);
    copy.endCopyFrom();
  }

  handleCopyInResponse(): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}

  handleError(error: Error): void {
    // The client forgets this query on an error: the ReadyForQuery that follows is not passed on.
    this.error = error;
    this.settle(error);
  }

  handleReadyForQuery(): void {
    this.settle(this.error);
  }
}

/** Runs `COPY <table> (<columns>) FROM STDIN` with `data` in COPY's text format (see copyText). */
export function copyIn(client: pg.Client, text: string, data: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    let settled = false;
    client.query(
      new CopyIn(text, data, (error) => {
        if (settled) return;
        settled = true;
        if (error) reject(error);
        else resolve();
      }),
    );
  });
}

const NEEDS_ESCAPE = /[\\\n\r\t]/;
const ESCAPED = /[\\\n\r\t]/g;
const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Rows in COPY's text format: tab between values, a line each, `\N` for null, backslash escapes. */
export function copyText(rows: readonly (readonly Value[])[]): Buffer {
  let text = '';
  for (const row of rows) {
    for (let index = 0; index < row.length; index++) {
      const value = row[index];
      if (index > 0) text += '\t';
      if (value === null || value === undefined) text += '\\N';
      else if (typeof value === 'number') text += String(value);
      else text += NEEDS_ESCAPE.test(value) ? value.replace(ESCAPED, (char) => ESCAPES[char]!) : value;
    }
    text += '\n';
  }
  return Buffer.from(text, 'utf8');
}
