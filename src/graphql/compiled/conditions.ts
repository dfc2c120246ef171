// @skip/@include, decided when a plan is made: which variables the conditions use, the key of their values that
// picks a plan, and the error graphql-js raises for a condition it refuses.
import {
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  Kind,
  type DirectiveNode,
  type FragmentDefinitionNode,
  type GraphQLError,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';

/** Variable values that decide @skip/@include; INCLUDE_ALL: every condition holds. */
export type Conditions = Record<string, unknown>;
export const INCLUDE_ALL: Conditions = {};

export function conditionKey(variableValues: Record<string, unknown>, name: string): string {
  if (!Object.prototype.hasOwnProperty.call(variableValues, name)) return 'u';
  const value = variableValues[name];
  return value === true ? 't' : value === false ? 'f' : 'n';
}

/** The variables the operation's and its fragments' @skip/@include conditions use. */
export function variablesInConditions(
  operation: OperationDefinitionNode,
  fragments: Record<string, FragmentDefinitionNode>,
): string[] {
  const names = new Set<string>();
  const visit = (selectionSet: SelectionSetNode | undefined) => {
    for (const selection of selectionSet?.selections ?? []) {
      for (const directive of selection.directives ?? []) {
        if (!isCondition(directive)) continue;
        for (const argument of directive.arguments ?? []) {
          if (argument.value.kind === Kind.VARIABLE) names.add(argument.value.name.value);
        }
      }
      if (selection.kind !== Kind.FRAGMENT_SPREAD) visit(selection.selectionSet);
    }
  };
  visit(operation.selectionSet);
  for (const fragment of Object.values(fragments)) visit(fragment.selectionSet);
  return [...names].sort();
}

function isCondition(directive: DirectiveNode): boolean {
  return directive.name.value === GraphQLSkipDirective.name || directive.name.value === GraphQLIncludeDirective.name;
}

/** graphql-js refused a @skip/@include (its variable null); carries the error to where graphql-js raises it. */
export class DirectiveRefused extends Error {
  constructor(readonly error: GraphQLError) {
    super(error.message);
  }
}
