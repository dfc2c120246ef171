// `COPY … FROM STDIN` over the pg client's own connection, without pg-copy-streams: a query object the client
// runs like any other (pg's Submittable) that sends the statement, the rows as one CopyData message and CopyDone
// in one write. The rows go without waiting for the server's CopyInResponse, so the next batch is prepared while
// the server takes this one; a server that refused the statement ignores the copy messages that follow (the
// protocol says so), and answers with the error.
//
// Batches of one load may be handed to the client before the last is done (it runs them in turn). Those share a
// CopyChain: once one has failed, the ones after it send an empty statement instead of their rows and fail too, so
// that the target never holds a batch without the ones before it.
import type pg from 'pg';
import type { Value } from './side.js';

interface CopyConnection {
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
}

/** The batches of one load: whether one has failed. */
export class CopyChain {
  failed = false;
}

class CopyIn implements pg.Submittable {
  private error: Error | null = null;

  constructor(
    private readonly text: string,
    private readonly data: Buffer,
    private readonly chain: CopyChain,
    private readonly settle: (error: Error | null) => void,
  ) {}

  submit(connection: pg.Connection): void {
    const copy = connection as unknown as CopyConnection;
    if (this.chain.failed) {
      this.error = new Error('not written: an earlier batch of this load failed');
      copy.query('');
      return;
    }
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
    this.chain.failed = true;
    this.settle(error);
  }

  handleReadyForQuery(): void {
    this.settle(this.error);
  }
}

/**
 * Runs `COPY <table> (<columns>) FROM STDIN` with `data` in COPY's text format (see copyText), after the queries
 * already handed to the client. `chain`: the load it is a batch of (a batch after a failed one writes nothing).
 */
export function copyIn(client: pg.Client, text: string, data: Buffer, chain = new CopyChain()): Promise<void> {
  return new Promise((resolve, reject) => {
    let settled = false;
    client.query(
      new CopyIn(text, data, chain, (error) => {
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
