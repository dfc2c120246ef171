import {
  getArgumentValues,
  Kind,
  OperationTypeNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLSchema,
  type SelectionSetNode,
  type FieldNode,
} from 'graphql';
import type { Permission } from '../../domain/roles.js';
import { importRowLimitError, MAX_IMPORT_ROWS } from '../../services/limits.js';
import type { PreparedOperation } from '../request.js';
import { MAX_PUBLISH_IDS } from '../../domain/drafts.js';

/** What running an admin operation needs: the permissions it uses and the record-write cost. */
export interface OperationPlan {
  permissions: Set<Permission>;
  cost: number;
}

/**
 * Works out, before anything runs, what the operation will do: which namespaces it writes (or, for `token`,
 * reads) and how many record writes it makes (aliases add up; an import costs its number of rows).
 */
export function planAdminOperation(schema: GraphQLSchema, prepared: PreparedOperation): OperationPlan {
  const plan: OperationPlan = { permissions: new Set(['read']), cost: 0 };
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of prepared.document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const namespaces = fieldsOf(prepared.operation.selectionSet, fragments);
  // Tokens, read or written, are for owners and admins only; token mutations cost nothing (cost = record writes).
  if (namespaces.some((namespace) => namespace.name.value === 'token')) plan.permissions.add('manage tokens');
  // So are webhooks (they carry secrets and send the workspace's content away); their mutations cost nothing either.
  if (namespaces.some((namespace) => namespace.name.value === 'webhook')) plan.permissions.add('manage webhooks');
  // And members (their emails are the users' own; only owners and admins see and change who is in the workspace).
  if (namespaces.some((namespace) => namespace.name.value === 'member')) plan.permissions.add('manage members');
  if (prepared.operation.operation !== OperationTypeNode.MUTATION) return plan;
  const recordMutations = schema.getType('RecordMutations') as GraphQLObjectType;
  for (const namespace of namespaces) {
    if (namespace.name.value === 'model') plan.permissions.add('change models');
    if (namespace.name.value === 'workspace') plan.permissions.add('change workspace settings');
    if (namespace.name.value === 'asset' && namespace.selectionSet) {
      // Each asset change or delete is a write of the workspace's content: editor and above, one of the budget.
      const writes = fieldsOf(namespace.selectionSet, fragments).filter((write) => write.name.value !== '__typename');
      if (writes.length > 0) plan.permissions.add('write records');
      plan.cost += writes.length;
    }
    if (namespace.name.value !== 'record' || !namespace.selectionSet) continue;
    for (const write of fieldsOf(namespace.selectionSet, fragments)) {
      if (write.name.value === '__typename') continue;
      plan.permissions.add('write records');
      plan.cost += writeCost(recordMutations, write, prepared.coercedVariables);
    }
  }
  return plan;
}

function writeCost(type: GraphQLObjectType, field: FieldNode, variables: Record<string, unknown>): number {
  const name = field.name.value;
  if (name === 'publish' || name === 'unpublish') {
    const { ids } = getArgumentValues(type.getFields()[name]!, field, variables) as { ids: unknown[] };
    // Past the limit the call is refused as it runs (publishIds); it costs no more than the limit.
    return Math.min(ids.length, MAX_PUBLISH_IDS);
  }
  if (name !== 'import') return 1;
  const definition = type.getFields().import!;
  const args = getArgumentValues(definition, field, variables) as { input: { rows: unknown[] } };
  const rows = args.input.rows.length;
  if (rows > MAX_IMPORT_ROWS) throw importRowLimitError(rows);
  return rows;
}

function fieldsOf(selectionSet: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>): FieldNode[] {
  return selectionSet.selections.flatMap((selection) => {
    if (selection.kind === Kind.FIELD) return [selection];
    if (selection.kind === Kind.INLINE_FRAGMENT) return fieldsOf(selection.selectionSet, fragments);
    const fragment = fragments.get(selection.name.value);
    return fragment ? fieldsOf(fragment.selectionSet, fragments) : [];
  });
}
