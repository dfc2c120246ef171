// Preview on the delivery route (docs/lifecycle.md): `preview: true` on records, record or recordsByIds answers working
// copies, to callers with a token of the workspace only; told before the operation runs, so that a caller without
// one is refused as a whole (401), as the admin route refuses a missing token.
import { Kind, visit, type ASTNode, type OperationDefinitionNode, type ValueNode } from 'graphql';
import type { PreparedOperation } from '../request.js';

/**
 * The values given to `preview` arguments in an operation and the document's fragments (a field given preview may
 * sit in one), found once per operation: documents are cached, and the route asks for every request.
 */
const previewValues = new WeakMap<OperationDefinitionNode, ValueNode[]>();

function valuesOf(prepared: PreparedOperation): ValueNode[] {
  let values = previewValues.get(prepared.operation);
  if (!values) {
    const found: ValueNode[] = [];
    const collect = (node: ASTNode) =>
      visit(node, {
        Argument(argument) {
          if (argument.name.value === 'preview') found.push(argument.value);
        },
      });
    for (const definition of prepared.document.definitions) {
      if (definition === prepared.operation || definition.kind === Kind.FRAGMENT_DEFINITION) collect(definition);
    }
    previewValues.set(prepared.operation, (values = found));
  }
  return values;
}

/** Whether any field of the operation is given `preview: true` (written in, or by a variable). */
export function asksForPreview(prepared: PreparedOperation): boolean {
  return valuesOf(prepared).some((value) =>
    value.kind === Kind.BOOLEAN
      ? value.value
      : value.kind === Kind.VARIABLE && prepared.coercedVariables[value.name.value] === true,
  );
}
