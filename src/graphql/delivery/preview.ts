// Preview on the delivery route (docs/lifecycle.md): `preview: true` on records, record or recordsByIds answers working
// copies, to callers with a token of the workspace only; told before the operation runs, so that a caller without
// one is refused as a whole (401), as the admin route refuses a missing token.
import { BREAK, Kind, visit, type ValueNode } from 'graphql';
import type { PreparedOperation } from '../request.js';

/** Whether any field of the operation is given `preview: true` (written in, or by a variable). */
export function asksForPreview(prepared: PreparedOperation): boolean {
  let found = false;
  const isTrue = (value: ValueNode): boolean =>
    value.kind === Kind.BOOLEAN
      ? value.value
      : value.kind === Kind.VARIABLE && prepared.coercedVariables[value.name.value] === true;
  const check = (node: Parameters<typeof visit>[0]) =>
    visit(node, {
      Argument(argument) {
        if (argument.name.value === 'preview' && isTrue(argument.value)) {
          found = true;
          return BREAK;
        }
        return undefined;
      },
    });
  // Fragments too: a field given preview may sit in one.
  for (const definition of prepared.document.definitions) {
    if (found) break;
    if (definition === prepared.operation || definition.kind === Kind.FRAGMENT_DEFINITION) check(definition);
  }
  return found;
}
