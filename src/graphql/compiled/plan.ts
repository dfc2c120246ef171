// The shapes of a compiled plan (one FieldPlan per response key of an object type) and of one run of it: the
// response path, the errors collected, and the JSON text a completed value becomes.
import type {
  FieldNode,
  FragmentDefinitionNode,
  GraphQLError,
  GraphQLField,
  GraphQLFieldResolver,
  GraphQLObjectType,
  GraphQLOutputType,
  GraphQLSchema,
  OperationDefinitionNode,
} from 'graphql';

export interface Path {
  readonly prev: Path | undefined;
  readonly key: string | number;
  readonly typename: string | undefined;
}

/**
 * graphql-js's CollectedErrors: an error is kept unless its position, or a position above it, has already been
 * nulled by an earlier error (fields still running there report errors nobody will see).
 */
export class CollectedErrors {
  readonly list: GraphQLError[] = [];
  /** Made on the first error: most answers have none. */
  private nulled: Set<Path | undefined> | undefined;

  add(error: GraphQLError, path: Path | undefined): void {
    const nulled = (this.nulled ??= new Set());
    for (let position = path; position !== undefined; position = position.prev) {
      if (nulled.has(position)) return;
    }
    if (nulled.has(undefined)) return;
    nulled.add(path);
    this.list.push(error);
  }
}

/** What one run of a plan shares. */
export interface Run {
  readonly schema: GraphQLSchema;
  readonly fragments: Record<string, FragmentDefinitionNode>;
  readonly rootValue: unknown;
  readonly operation: OperationDefinitionNode;
  readonly variableValues: Record<string, unknown>;
  readonly contextValue: unknown;
  readonly errors: CollectedErrors;
}

/**
 * A completed value as JSON text; a list whose items were promises stays an array of its items' texts until its
 * object is written (joining it on the spot would cost a promise reaction graphql-js does not have).
 */
export type Json = string | Json[];

/** Completes a resolved value of the field's type (or of a list item of it); throws on an error. */
export type Complete = (run: Run, field: FieldPlan, path: Path, value: unknown) => Json | Promise<Json>;

export interface FieldPlan {
  /** `"responseKey":` */
  readonly prefix: string;
  readonly responseKey: string;
  readonly fieldName: string;
  readonly nodes: readonly FieldNode[];
  readonly parentType: GraphQLObjectType;
  readonly returnType: GraphQLOutputType;
  /** null for __typename. */
  readonly definition: GraphQLField<unknown, unknown> | null;
  readonly resolve: GraphQLFieldResolver<unknown, unknown> | undefined;
  readonly hasArguments: boolean;
  /**
   * A leaf without arguments read from its source (graphql-js's default resolver, or a resolver marked with
   * `sourceOnlyResolver`): run without a path or info object unless something goes wrong.
   */
  readonly leafFromSource: boolean;
  /** The resolver of a leaf from its source, called with the source alone; undefined for the default resolver. */
  readonly readSource: SourceResolver | undefined;
  readonly complete: Complete;
}

/** A resolver that reads only its source: no arguments, context or info. */
export type SourceResolver = (source: unknown) => unknown;
