// What `import --dry-run` checks beyond converting each row: what the server would refuse that the client can know
// without writing — the record rules of the model (required fields, types, number formats, unknown fields), and a
// SKU given twice in the file. Relation targets and SKUs already stored are the server's to know.
import type { FieldDefinition as ClientField, JsonObject } from '../client/types.js';
import { issueMessage } from '../domain/errors.js';
import type { FieldDefinition } from '../domain/fields.js';
import { checkRecordData } from '../domain/record-data.js';

export class DryRunChecks {
  private readonly skuLines = new Map<string, string>();

  constructor(
    private readonly fields: readonly ClientField[],
    private readonly skuField: string | null,
  ) {}

  /** Throws the server's message for the row's first problems, prefixed by where the row is (`line 12`). */
  check(data: JsonObject, where: string): void {
    const { issues } = checkRecordData(this.fields as readonly FieldDefinition[], data);
    if (issues.length > 0) throw new Error(`${where}: ${issues.slice(0, 3).map(issueMessage).join('; ')}`);
    if (this.skuField === null) return;
    const sku = data[this.skuField];
    if (typeof sku !== 'string') return;
    const first = this.skuLines.get(sku);
    if (first !== undefined) {
      throw new Error(`${where}: ${this.skuField}: A record with this SKU already exists (on ${first} of the file)`);
    }
    this.skuLines.set(sku, where);
  }
}
