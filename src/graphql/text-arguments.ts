import {
  getNamedType,
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

/**
 * Wraps a resolver so that a String or ID argument (inside input objects and lists too) that no database can
 * store — a NUL character, a lone surrogate — is refused by name before the resolver runs. JSON arguments
 * (record data, import rows) are checked field by field by the record rules instead.
 */
export function refusingUnstorableText<TSource, TContext>(
  args: readonly GraphQLArgument[],
  resolve: GraphQLFieldResolver<TSource, TContext>,
): GraphQLFieldResolver<TSource, TContext> {
  const checked = args.filter((arg) => holdsText(arg.type, new Set()));
  if (checked.length === 0) return resolve;
  return (source, values: Record<string, unknown>, context, info) => {
    for (const arg of checked) checkValue(arg.type, values[arg.name], arg.name === 'input' ? '' : arg.name);
    return resolve(source, values, context, info);
  };
}

function isTextScalar(type: GraphQLInputType): boolean {
  return type instanceof GraphQLScalarType && (type.name === 'String' || type.name === 'ID');
}

function holdsText(type: GraphQLInputType, seen: Set<GraphQLInputType>): boolean {
  const named = getNamedType(type);
  if (isTextScalar(named)) return true;
  if (!(named instanceof GraphQLInputObjectType) || seen.has(named)) return false;
  seen.add(named);
  return Object.values(named.getFields()).some((field) => holdsText(field.type, seen));
}

function checkValue(type: GraphQLInputType, value: unknown, path: string): void {
  if (value === null || value === undefined) return;
  if (type instanceof GraphQLNonNull) {
    checkValue(type.ofType, value, path);
  } else if (type instanceof GraphQLList) {
    if (Array.isArray(value)) value.forEach((item, index) => checkValue(type.ofType, item, `${path}[${index}]`));
  } else if (type instanceof GraphQLInputObjectType) {
    const record = value as Record<string, unknown>;
    for (const [name, field] of Object.entries(type.getFields())) {
      checkValue(field.type, record[name], path === '' ? name : `${path}.${name}`);
    }
  } else if (isTextScalar(type) && typeof value === 'string') {
    const problem = textProblem(value);
    if (problem) throw new ServiceError('BAD_USER_INPUT', `${path}: ${problem}`, { field: path.split(/[.[]/)[0] });
  }
}
