// Abuse limits for GraphQL documents, as graphql-js validation rules: they run before anything executes, so
// a refused document costs no database work and no write budget. The token count is bounded by the parser
// (`maxTokens`), the body size by the HTTP layer, batching (a JSON array body) by readGraphQLRequest.
import {
  GraphQLError,
  Kind,
  type FragmentDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';

export interface GraphQLLimits {
  /** Deepest field nesting of an operation, fragments expanded; `{ model { list { id } } }` is 3. */
  maxDepth: number;
  /** Aliased fields of an operation, fragments expanded (a fragment spread twice counts twice). */
  maxAliases: number;
  /** When false, `__schema` and `__type` are refused; `__typename` stays allowed. */
  introspection: boolean;
}

export const DEFAULT_LIMITS: GraphQLLimits = { maxDepth: 12, maxAliases: 30, introspection: true };

export const INTROSPECTION_DISABLED_MESSAGE = 'Introspection is disabled';

interface Shape {
  depth: number;
  aliases: number;
}

/**
 * The levels a field adds to the depth. `ofType` (of introspection's __Type, no field of ours) adds none: the
 * standard introspection query (graphql-js getIntrospectionQuery, which GraphQL tools send) follows it nine
 * levels deep to unwrap list and non-null types, and each level is one type, never a list to fan out over.
 */
function levelOf(fieldName: string): number {
  return fieldName === 'ofType' ? 0 : 1;
}

/** Depth and alias count of every operation, each fragment measured once (memoised), so the walk is linear. */
function operationShapeRule(limits: GraphQLLimits): ValidationRule {
  return (context: ValidationContext) => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of context.getDocument().definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    }
    const measured = new Map<string, Shape>();
    const inProgress = new Set<string>();

    const measure = (selectionSet: SelectionSetNode): Shape => {
      const shape: Shape = { depth: 0, aliases: 0 };
      for (const selection of selectionSet.selections) {
        let inner: Shape;
        if (selection.kind === Kind.FIELD) {
          const sub = selection.selectionSet ? measure(selection.selectionSet) : { depth: 0, aliases: 0 };
          inner = { depth: sub.depth + levelOf(selection.name.value), aliases: sub.aliases + (selection.alias ? 1 : 0) };
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          inner = measure(selection.selectionSet);
        } else {
          inner = measureFragment(selection.name.value);
        }
        shape.depth = Math.max(shape.depth, inner.depth);
        shape.aliases += inner.aliases;
      }
      return shape;
    };

    const measureFragment = (name: string): Shape => {
      const known = measured.get(name);
      if (known) return known;
      const fragment = fragments.get(name);
      // Unknown fragments and fragment cycles are reported by the standard rules.
      if (!fragment || inProgress.has(name)) return { depth: 0, aliases: 0 };
      inProgress.add(name);
      const shape = measure(fragment.selectionSet);
      inProgress.delete(name);
      measured.set(name, shape);
      return shape;
    };

    return {
      OperationDefinition(node) {
        const shape = measure(node.selectionSet);
        if (shape.depth > limits.maxDepth) {
          context.reportError(
            new GraphQLError(`Query is too deep: ${shape.depth} levels, at most ${limits.maxDepth}`, { nodes: node }),
          );
        }
        if (shape.aliases > limits.maxAliases) {
          context.reportError(
            new GraphQLError(`Too many aliases: ${shape.aliases}, at most ${limits.maxAliases}`, { nodes: node }),
          );
        }
        return false;
      },
    };
  };
}

const noIntrospectionRule: ValidationRule = (context) => {
  let reported = false;
  return {
    Field(node) {
      const name = node.name.value;
      if (!reported && (name === '__schema' || name === '__type')) {
        reported = true;
        context.reportError(new GraphQLError(INTROSPECTION_DISABLED_MESSAGE, { nodes: node }));
      }
    },
  };
};

/** The limit rules; run them before the standard rules (see DocumentCache). */
export function limitRules(limits: GraphQLLimits): ValidationRule[] {
  const rules = [operationShapeRule(limits)];
  if (!limits.introspection) rules.push(noIntrospectionRule);
  return rules;
}
