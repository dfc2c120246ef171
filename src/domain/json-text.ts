// Record data as the JSON text the database holds, so that an answer can carry it as it is instead of parsing it
// into objects and serialising them again (a page of 100 records spent more time on that than on the query).
// The store makes it, the GraphQL answer copies it: so it lives here, below both.
/** A JSON value kept as its (valid, minified) JSON text. `JSON.stringify` of it gives the same JSON. */
export class JsonText {
  constructor(readonly text: string) {}

  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

// The text behind a record's lazy `data`, kept in a private field: invisible to Object.keys, spread, JSON.stringify
// and deep equality, so the record looks and compares like any plain record.
class Base {
  constructor(target: object) {
    return target;
  }
}

class DataText extends Base {
  #text: string | undefined;

  constructor(target: object, text: string) {
    super(target);
    this.#text = text;
  }

  static peek(target: object): string | undefined {
    return #text in target ? target.#text : undefined;
  }

  static take(target: object): string | undefined {
    if (!(#text in target)) return undefined;
    const text = target.#text;
    target.#text = undefined;
    return text;
  }
}

function settle(target: object, value: unknown): void {
  Object.defineProperty(target, 'data', { value, writable: true, enumerable: true, configurable: true });
}

const LAZY_DATA: PropertyDescriptor = {
  get(this: object) {
    const text = DataText.take(this);
    const value: unknown = text === undefined ? undefined : JSON.parse(text);
    settle(this, value);
    return value;
  },
  set(this: object, value: unknown) {
    DataText.take(this);
    settle(this, value);
  },
  enumerable: true,
  configurable: true,
};

/**
 * Defines `target.data` as the JSON `text`, parsed on first read (then an ordinary property). Call it where `data`
 * belongs in the key order; the caller adds the later keys after it.
 */
export function defineLazyData(target: object, text: string): void {
  Object.defineProperty(target, 'data', LAZY_DATA);
  new DataText(target, text);
}

/** The record's data as JSON text when it has not been parsed (nor replaced) yet; otherwise undefined. */
export function unparsedData(record: object): JsonText | undefined {
  const text = DataText.peek(record);
  return text === undefined ? undefined : new JsonText(text);
}

/** unparsedData's text. */
export function unparsedText(record: object): string | undefined {
  return DataText.peek(record);
}
