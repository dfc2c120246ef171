// The model editor's error slots, by the path the server names (`name`, `fields[1].key`, `product.skuField`).
import { ApiError } from './api.js';
import type { DraftField } from './model-draft.js';
import type { FieldRow } from './ui.js';
import { pathPrefixes, splitFieldMessage } from './values.js';

export type RegisterRow = (path: string, row: FieldRow) => FieldRow;

export class ModelFormErrors {
  private readonly rows = new Map<string, FieldRow>();

  /** Names a row by its path; the field list registers its rows again on every render. */
  readonly register: RegisterRow = (path, row) => {
    this.rows.set(path, row);
    return row;
  };

  clear(): void {
    for (const row of this.rows.values()) row.setError(null);
  }

  /** True while a row on the page shows a message (an edit of its field takes it away). */
  showing(): boolean {
    return [...this.rows.values()].some((row) => row.element.isConnected && row.error() !== null);
  }

  /** Shows an API error at the row it names (the nearest one on the page), and focuses it; false when none. */
  place(error: unknown, fields: DraftField[]): boolean {
    if (!(error instanceof ApiError)) return false;
    const named = splitFieldMessage(error.message);
    if (!named) return false;
    let row: FieldRow | undefined;
    for (const path of pathPrefixes(named.path)) {
      const found = this.rows.get(path);
      if (found && found.element.isConnected) {
        row = found;
        break;
      }
    }
    // A CONFLICT on a change names the field by its key (`price: ...`).
    if (!row) {
      const index = fields.findIndex((field) => field.key === named.path);
      if (index >= 0) row = this.rows.get(`fields[${index}]`);
    }
    if (!row) return false;
    row.setError(named.reason);
    row.focusTarget.focus();
    return true;
  }
}
