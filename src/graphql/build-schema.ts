import { buildSchema, GraphQLObjectType, GraphQLScalarType, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import { unparsedData } from '../domain/json-text.js';
import { sourceOnlyResolver } from './compiled-execute.js';
import { DateTimeScalar, JsonScalar } from './scalars.js';
import { refusingUnstorableText } from './text-arguments.js';

/** `ModelRecord.data`: the JSON text as stored when the record's data has not been parsed (the answer copies it). */
const recordData = sourceOnlyResolver(
  (record: unknown): unknown => unparsedData(record as object) ?? (record as { data: unknown }).data,
);

export type ResolverMap = Record<string, Record<string, GraphQLFieldResolver<unknown, never, never>>>;

/** Builds a schema from SDL and attaches resolvers and the shared scalars by type and field name. */
export function buildExecutableSchema(sdl: string, resolvers: ResolverMap): GraphQLSchema {
  const schema = buildSchema(sdl);
  for (const [typeName, fields] of Object.entries(resolvers)) {
    const type = schema.getType(typeName);
    if (!(type instanceof GraphQLObjectType)) throw new Error(`No object type ${typeName} in the schema`);
    const typeFields = type.getFields();
    for (const [fieldName, resolve] of Object.entries(fields)) {
      const field = typeFields[fieldName];
      if (!field) throw new Error(`No field ${typeName}.${fieldName} in the schema`);
      field.resolve = refusingUnstorableText(field.args, resolve as GraphQLFieldResolver<unknown, unknown>);
    }
  }
  // A record's data as the JSON text the database returned, when it has not been parsed: the answer copies it.
  const recordType = schema.getType('ModelRecord');
  const dataField = recordType instanceof GraphQLObjectType ? recordType.getFields().data : undefined;
  if (dataField && !dataField.resolve) dataField.resolve = recordData;
  for (const scalar of [JsonScalar, DateTimeScalar]) {
    const type = schema.getType(scalar.name);
    if (type instanceof GraphQLScalarType) Object.assign(type, scalar.toConfig(), { extensions: {} });
  }
  return schema;
}

/** A resolver for a namespace field (`model`, `record`): returns an empty object its sub-fields resolve on. */
export const namespace = () => ({});
