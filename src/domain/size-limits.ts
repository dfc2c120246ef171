import { ServiceError, type FieldIssue } from './errors.js';
import type { RecordData } from './fields.js';

/** How large stored record data may be, in bytes of its JSON text (UTF-8). */
export interface RecordSizeLimits {
  /** One field's value, as JSON. */
  maxFieldBytes: number;
  /** The whole of one record's `data`, as JSON. */
  maxRecordBytes: number;
}

export const DEFAULT_RECORD_SIZE_LIMITS: RecordSizeLimits = {
  maxFieldBytes: 512 * 1024,
  maxRecordBytes: 1024 * 1024,
};

/** How large one answer may be, in bytes of JSON. */
export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/**
 * The issues of a record's data over the size limits, given the JSON text it will be stored as. Only a text long
 * enough to break a limit is measured field by field, so the common small record costs one length comparison.
 */
export function sizeIssues(data: RecordData, text: string, limits: RecordSizeLimits): FieldIssue[] {
  // A UTF-16 code unit is at most 3 bytes of UTF-8.
  if (text.length * 3 <= Math.min(limits.maxFieldBytes, limits.maxRecordBytes)) return [];
  const recordBytes = Buffer.byteLength(text);
  if (recordBytes <= Math.min(limits.maxFieldBytes, limits.maxRecordBytes)) return [];
  const issues: FieldIssue[] = [];
  let largest = { key: '', bytes: -1 };
  for (const [key, value] of Object.entries(data)) {
    const bytes = Buffer.byteLength(JSON.stringify(value));
    if (bytes > largest.bytes) largest = { key, bytes };
    if (bytes > limits.maxFieldBytes) {
      issues.push({
        path: key,
        reason: `is ${bytes} bytes as JSON; one field value may be at most ${limits.maxFieldBytes} bytes`,
      });
    }
  }
  if (issues.length === 0 && recordBytes > limits.maxRecordBytes) {
    issues.push({
      path: largest.key,
      reason:
        `the record's data would be ${recordBytes} bytes as JSON, over the ${limits.maxRecordBytes} bytes one record may hold ` +
        `(this field is the largest, ${largest.bytes} bytes)`,
    });
  }
  return issues;
}

/**
 * A record whose JSON text is longer than this (in UTF-16 code units) marks its model as holding large records.
 * A page of 100 records under it stays under a few megabytes, so only such models' pages need a size bound.
 */
export const LARGE_RECORD_CHARS = 16 * 1024;

export function isLargeRecord(dataText: string): boolean {
  return dataText.length > LARGE_RECORD_CHARS;
}

/** The refusal of a page whose records' data would make the answer larger than one response may be. */
export function pageTooLargeError(fitting: number, maxResponseBytes: number): ServiceError {
  const advice =
    fitting > 0
      ? `ask for fewer records (limit: ${fitting} fit from this offset)`
      : 'even the first record does not fit: read it without its data, or raise MAX_RESPONSE_BYTES';
  return new ServiceError(
    'PAYLOAD_TOO_LARGE',
    `limit: the records of this page hold more data than the ${maxResponseBytes} bytes one response may carry; ${advice}`,
    { field: 'limit', maxResponseBytes, fitting },
  );
}
