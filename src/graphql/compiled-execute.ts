// A compiled execution path for the operations the service answers all day (record.create, record.list, …).
// graphql-js walks the document for every request and every list item: it collects fields, builds an info
// object and a path for each field, and checks every type again; then the answer is serialised by JSON.stringify.
// Here an operation is turned once into a plan (fields collected and merged, types resolved, one function per
// field), and running the plan writes the answer's JSON text directly: record data stored as JSON text is copied
// into it as it is (JsonText), not parsed and serialised again.
//
// The answers are graphql-js's (execute.js of graphql 16.15), errors and their order included
// (test/graphql/compiled-differential.test.ts): resolvers get the same arguments, coerced the same way, and an info
// object; a resolver error becomes a located error and null, and a null in a non-null position goes up to the
// nearest nullable field; root mutation fields run one after another, other fields side by side. The promises are
// chained as graphql-js chains them (Promise.all for an object's fields and a list's items, then/finally where it
// has them), because errors are reported in the order they happen, some microtasks apart; and, as graphql-js,
// an error raised inside a part of the answer already nulled is dropped. @skip/@include are decided when the plan
// is made: an operation whose conditions use variables gets a plan per combination of their values.
// Introspection (__schema, __type) runs on the same plan. Abstract types and isTypeOf are not compiled: such
// operations run on graphql-js (the service's schemas have neither).
import {
  GraphQLError,
  Kind,
  OperationTypeNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { Compiler, NotCompilable } from './compiled/compiler.js';
import { completeObject, completeSerially } from './compiled/complete.js';
import { conditionKey, DirectiveRefused, INCLUDE_ALL, variablesInConditions, type Conditions } from './compiled/conditions.js';
import { CollectedErrors, type FieldPlan, type Run } from './compiled/plan.js';
import { PerOperation } from './per-operation.js';

export { sourceOnlyResolver } from './compiled/compiler.js';

export interface CompiledOperation {
  /** Runs the operation: the `data` JSON text and the errors raised (graphql-js's located errors), in its order. */
  run(
    contextValue: unknown,
    variableValues: Record<string, unknown>,
    rootValue: unknown,
  ): Promise<{ data: string; errors: GraphQLError[] }>;
}

const plans = new PerOperation<CompiledOperation | null>();

/** The compiled plan of an operation of a validated document, made once; null when it must run on graphql-js. */
export function compiledOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
): CompiledOperation | null {
  return plans.get(schema, operation, () => {
    try {
      return compile(schema, document, operation);
    } catch (error) {
      if (!(error instanceof NotCompilable)) throw error;
      return null;
    }
  });
}

/** The root fields of a plan, or the error graphql-js raises collecting them (a refused @skip/@include). */
type RootPlan = FieldPlan[] | GraphQLError;

/** Plans kept per operation for the combinations of its condition variables' values. */
const MAX_PLANS_PER_OPERATION = 16;

function compile(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): CompiledOperation {
  const rootType = schema.getRootType(operation.operation);
  if (!rootType) throw new NotCompilable();
  const fragments = Object.create(null) as Record<string, FragmentDefinitionNode>;
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
  }
  const rootPlan = (conditions: Conditions): RootPlan => {
    try {
      return new Compiler(schema, fragments, conditions).fieldPlans(rootType, [operation.selectionSet]);
    } catch (error) {
      if (error instanceof DirectiveRefused) return error.error;
      throw error;
    }
  };
  const conditionVariables = variablesInConditions(operation, fragments);
  let planFor: (variableValues: Record<string, unknown>) => RootPlan;
  if (conditionVariables.length === 0) {
    // Conditions, if any, are literals.
    const only = rootPlan({});
    planFor = () => only;
  } else {
    // Everything included once, to learn whether the operation compiles at all (a part of it compiles as well).
    rootPlan(INCLUDE_ALL);
    const byValues = new Map<string, RootPlan>();
    planFor = (variableValues) => {
      const key = conditionVariables.map((name) => conditionKey(variableValues, name)).join('');
      let plan = byValues.get(key);
      if (!plan) {
        plan = rootPlan(variableValues);
        if (byValues.size < MAX_PLANS_PER_OPERATION) byValues.set(key, plan);
      }
      return plan;
    };
  }
  const serial = operation.operation === OperationTypeNode.MUTATION;
  return {
    async run(contextValue, variableValues, rootValue) {
      const errors = new CollectedErrors();
      const fields = planFor(variableValues);
      if (fields instanceof GraphQLError) {
        errors.add(fields, undefined);
        return { data: 'null', errors: errors.list };
      }
      const run: Run = { schema, fragments, rootValue, operation, variableValues, contextValue, errors };
      let data: string;
      try {
        const result = serial ? completeSerially(run, fields, rootValue) : completeObject(run, fields, rootValue, undefined);
        data = typeof result === 'string' ? result : await result;
      } catch (error) {
        errors.add(error as GraphQLError, undefined);
        data = 'null';
      }
      return { data, errors: errors.list };
    },
  };
}
