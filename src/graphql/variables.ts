// Variable coercion without graphql-js's per-value machinery, for variables that are already right: an import's
// 1000 rows went through coerceInputValue one by one (a path object, several type checks each) on every request.
// The plan made for an operation coerces well-formed values exactly as graphql-js's getVariableValues does
// (the same values, new objects for input objects and lists, keys in the type's field order); on anything else —
// a missing, null or unknown value, a value a scalar refuses, a default to apply — it gives up, and graphql-js
// coerces the variables and reports the errors in its own words.
import {
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  isLeafType,
  typeFromAST,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { PerOperation } from './per-operation.js';

const GIVE_UP: unique symbol = Symbol('give up');
type Coerce = (value: unknown) => unknown;
type Plan = (inputs: Record<string, unknown>) => Record<string, unknown> | null;

const plans = new PerOperation<Plan | null>();

/** The operation's variables, coerced; null when graphql-js must do it (and report what is wrong). */
export function coerceVariablesQuickly(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  inputs: Record<string, unknown>,
): Record<string, unknown> | null {
  const plan = plans.get(schema, operation, () => planFor(schema, operation));
  return plan ? plan(inputs) : null;
}

function planFor(schema: GraphQLSchema, operation: OperationDefinitionNode): Plan | null {
  const variables: { name: string; coerce: Coerce; nonNull: boolean }[] = [];
  for (const definition of operation.variableDefinitions ?? []) {
    // A default to apply is graphql-js's job (valueFromAST); so is a type that is not an input type.
    if (definition.defaultValue) return null;
    const type = typeFromAST(schema, definition.type) as GraphQLInputType | undefined;
    const coerce = type && coercer(type);
    if (!coerce) return null;
    variables.push({ name: definition.variable.name.value, coerce, nonNull: type instanceof GraphQLNonNull });
  }
  return (inputs) => {
    const coerced: Record<string, unknown> = {};
    for (const variable of variables) {
      if (!Object.prototype.hasOwnProperty.call(inputs, variable.name)) {
        if (variable.nonNull) return null;
        continue;
      }
      const value = variable.coerce(inputs[variable.name]);
      if (value === GIVE_UP) return null;
      coerced[variable.name] = value;
    }
    return coerced;
  };
}

/** graphql-js's coerceInputValue for one type, for values it accepts; GIVE_UP otherwise. Null when not covered. */
function coercer(type: GraphQLInputType): Coerce | null {
  if (type instanceof GraphQLNonNull) {
    const inner = nullableCoercer(type.ofType);
    return inner && ((value) => (value === null || value === undefined ? GIVE_UP : inner(value)));
  }
  const inner = nullableCoercer(type);
  return inner && ((value) => (value === null || value === undefined ? null : inner(value)));
}

function nullableCoercer(type: GraphQLInputType): Coerce | null {
  if (type instanceof GraphQLList) {
    const item = coercer(type.ofType);
    if (!item) return null;
    return (value) => {
      // graphql-js takes a single value for a list of one.
      if (!Array.isArray(value)) {
        if (typeof value === 'object') return GIVE_UP;
        const only = item(value);
        return only === GIVE_UP ? GIVE_UP : [only];
      }
      const list = new Array<unknown>(value.length);
      for (let index = 0; index < value.length; index++) {
        const coerced = item(value[index]);
        if (coerced === GIVE_UP) return GIVE_UP;
        list[index] = coerced;
      }
      return list;
    };
  }
  if (type instanceof GraphQLInputObjectType) {
    if ((type as { isOneOf?: boolean }).isOneOf) return null;
    // Fields are planned on first use: input types may refer to themselves.
    type FieldPlan = { name: string; coerce: Coerce; nonNull: boolean; defaultValue: unknown };
    let fields: FieldPlan[] | null = null;
    let names: Set<string> | null = null;
    return (value) => {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return GIVE_UP;
      if (!fields) {
        const planned = Object.values(type.getFields()).map((field) => ({
          name: field.name,
          coerce: coercer(field.type),
          nonNull: field.type instanceof GraphQLNonNull,
          defaultValue: field.defaultValue,
        }));
        if (planned.some((field) => !field.coerce)) return GIVE_UP;
        fields = planned as FieldPlan[];
        names = new Set(planned.map((field) => field.name));
      }
      const input = value as Record<string, unknown>;
      for (const key of Object.keys(input)) if (!names!.has(key)) return GIVE_UP;
      const coerced: Record<string, unknown> = {};
      for (const field of fields) {
        const fieldValue = input[field.name];
        if (fieldValue === undefined) {
          if (field.defaultValue !== undefined) coerced[field.name] = field.defaultValue;
          else if (field.nonNull) return GIVE_UP;
          continue;
        }
        const result = field.coerce(fieldValue);
        if (result === GIVE_UP) return GIVE_UP;
        coerced[field.name] = result;
      }
      return coerced;
    };
  }
  if (isLeafType(type)) {
    return (value) => {
      let parsed: unknown;
      try {
        parsed = type.parseValue(value);
      } catch {
        return GIVE_UP;
      }
      return parsed === undefined ? GIVE_UP : parsed;
    };
  }
  return null;
}
