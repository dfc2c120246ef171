import {
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLScalarType,
  type GraphQLArgument,
  type GraphQLFieldResolver,
  type GraphQLInputType,
} from 'graphql';
import { ServiceError } from '../domain/errors.js';
import { textProblem } from '../domain/text.js';

/** Checks one argument value (already coerced by GraphQL); throws a field-named refusal. */
type Check = (value: unknown, path: string) => void;

/**
 * Wraps a resolver so that a String or ID argument (inside input objects and lists too) that no database can
 * store — a NUL character, a lone surrogate — is refused by name before the resolver runs. JSON arguments
 * (record data, import rows) are checked field by field by the record rules instead. The checks are made once,
 * from the argument types, so a request pays only for the strings it carries.
 */
export function refusingUnstorableText<TSource, TContext>(
  args: readonly GraphQLArgument[],
  resolve: GraphQLFieldResolver<TSource, TContext>,
): GraphQLFieldResolver<TSource, TContext> {
  const checks: [name: string, path: string, check: Check][] = [];
  for (const arg of args) {
    const check = checkOf(arg.type, new Set());
    if (check) checks.push([arg.name, arg.name === 'input' ? '' : arg.name, check]);
  }
  if (checks.length === 0) return resolve;
  return (source, values: Record<string, unknown>, context, info) => {
    for (const [name, path, check] of checks) check(values[name], path);
    return resolve(source, values, context, info);
  };
}

/** The check of a value of this type, or null when the type holds no String or ID. */
function checkOf(type: GraphQLInputType, seen: Set<GraphQLInputType>): Check | null {
  if (type instanceof GraphQLNonNull) return checkOf(type.ofType, seen);
  if (type instanceof GraphQLList) {
    const item = checkOf(type.ofType, seen);
    if (!item) return null;
    return (value, path) => {
      if (Array.isArray(value)) value.forEach((entry, index) => item(entry, `${path}[${index}]`));
    };
  }
  if (type instanceof GraphQLScalarType) return type.name === 'String' || type.name === 'ID' ? checkText : null;
  if (!(type instanceof GraphQLInputObjectType) || seen.has(type)) return null;
  seen.add(type);
  const fields: [name: string, check: Check][] = [];
  for (const [name, field] of Object.entries(type.getFields())) {
    const check = checkOf(field.type, seen);
    if (check) fields.push([name, check]);
  }
  if (fields.length === 0) return null;
  return (value, path) => {
    if (value === null || value === undefined) return;
    const record = value as Record<string, unknown>;
    for (const [name, check] of fields) check(record[name], path === '' ? name : `${path}.${name}`);
  };
}

function checkText(value: unknown, path: string): void {
  if (typeof value !== 'string') return;
  const problem = textProblem(value);
  if (problem) throw new ServiceError('BAD_USER_INPUT', `${path}: ${problem}`, { field: path.split(/[.[]/)[0] });
}
