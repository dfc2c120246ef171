// Abuse limits for GraphQL documents, as graphql-js validation rules: they run before anything executes, so
// a refused document costs no database work and no write budget. The token count is bounded by the parser
// (`maxTokens`), the body size by the HTTP layer, batching (a JSON array body) by readGraphQLRequest.
import {
  GraphQLError,
  Kind,
  Lexer,
  Source,
  TokenKind,
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
  /** The most `ofType` fields on one path. */
  ofTypeDepth: number;
  aliases: number;
}

const EMPTY_SHAPE: Shape = { depth: 0, ofTypeDepth: 0, aliases: 0 };

/**
 * `ofType` (of introspection's __Type, no field of ours) does not count toward the depth: the standard introspection
 * query (graphql-js getIntrospectionQuery, which GraphQL tools send) follows it nine levels deep to unwrap list and
 * non-null types, and each level is one type, never a list to fan out over. It has a limit of its own instead,
 * the most `typeDepth` getIntrospectionQuery accepts: a chain of thousands would otherwise be walked by execution.
 */
export const MAX_OF_TYPE_DEPTH = 100;

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
      const shape: Shape = { ...EMPTY_SHAPE };
      for (const selection of selectionSet.selections) {
        let inner: Shape;
        if (selection.kind === Kind.FIELD) {
          const sub = selection.selectionSet ? measure(selection.selectionSet) : EMPTY_SHAPE;
          const ofType = selection.name.value === 'ofType' ? 1 : 0;
          inner = {
            depth: sub.depth + 1 - ofType,
            ofTypeDepth: sub.ofTypeDepth + ofType,
            aliases: sub.aliases + (selection.alias ? 1 : 0),
          };
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          inner = measure(selection.selectionSet);
        } else {
          inner = measureFragment(selection.name.value);
        }
        shape.depth = Math.max(shape.depth, inner.depth);
        shape.ofTypeDepth = Math.max(shape.ofTypeDepth, inner.ofTypeDepth);
        shape.aliases += inner.aliases;
      }
      return shape;
    };

    const measureFragment = (name: string): Shape => {
      const known = measured.get(name);
      if (known) return known;
      const fragment = fragments.get(name);
      // Unknown fragments and fragment cycles are reported by the standard rules.
      if (!fragment || inProgress.has(name)) return EMPTY_SHAPE;
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
        if (shape.ofTypeDepth > MAX_OF_TYPE_DEPTH) {
          context.reportError(
            new GraphQLError(`Query is too deep: ${shape.ofTypeDepth} nested ofType fields, at most ${MAX_OF_TYPE_DEPTH}`, {
              nodes: node,
            }),
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

/**
 * The most nested `{`, `[` and `(` a document may have. graphql-js parses by recursion, and a few thousand levels
 * (well within the token limit) overflow the stack; the depth rules above only run on a parsed document.
 */
export const MAX_DOCUMENT_NESTING = 256;

const OPENING = new Set<TokenKind>([TokenKind.BRACE_L, TokenKind.BRACKET_L, TokenKind.PAREN_L]);
const CLOSING = new Set<TokenKind>([TokenKind.BRACE_R, TokenKind.BRACKET_R, TokenKind.PAREN_R]);

/**
 * The error for a document nested deeper than MAX_DOCUMENT_NESTING, found by its tokens alone, before it is parsed;
 * null when it is not (a document that does not lex, or has too many tokens, is left for the parser to refuse).
 */
export function documentNestingError(query: string, maxTokens: number): GraphQLError | null {
  const lexer = new Lexer(new Source(query));
  let nesting = 0;
  try {
    for (let tokens = 0; tokens <= maxTokens; tokens++) {
      const token = lexer.advance();
      if (token.kind === TokenKind.EOF) return null;
      if (OPENING.has(token.kind)) {
        if (++nesting > MAX_DOCUMENT_NESTING) {
          return new GraphQLError(`Query is too deep: more than ${MAX_DOCUMENT_NESTING} nested braces, brackets or parentheses`);
        }
      } else if (CLOSING.has(token.kind)) nesting--;
    }
  } catch {
    return null;
  }
  return null;
}
