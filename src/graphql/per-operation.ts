// A value made once per operation of a schema (a compiled plan, a variable coercer), kept as long as both are.
import type { GraphQLSchema, OperationDefinitionNode } from 'graphql';

/** `Value` excludes undefined: undefined marks an operation not seen yet. */
export class PerOperation<Value extends NonNullable<unknown> | null> {
  private readonly bySchema = new WeakMap<GraphQLSchema, WeakMap<OperationDefinitionNode, Value>>();

  /** The value kept for the operation, or the one `make` gives (kept unless it throws). */
  get(schema: GraphQLSchema, operation: OperationDefinitionNode, make: () => Value): Value {
    let byOperation = this.bySchema.get(schema);
    if (!byOperation) {
      byOperation = new WeakMap();
      this.bySchema.set(schema, byOperation);
    }
    const kept = byOperation.get(operation);
    if (kept !== undefined) return kept;
    const value = make();
    byOperation.set(operation, value);
    return value;
  }
}
