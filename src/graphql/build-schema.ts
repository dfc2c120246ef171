import {
  buildSchema,
  GraphQLObjectType,
  GraphQLScalarType,
  type GraphQLFieldResolver,
  type GraphQLResolveInfo,
  type GraphQLSchema,
} from 'graphql';
import type { FieldDefinition } from '../domain/fields.js';
import { unparsedData } from '../domain/json-text.js';
import type { StoredRecord } from '../domain/stored-record.js';
import { sourceOnlyResolver } from './compiled-execute.js';
import { DateTimeScalar, JsonScalar } from './scalars.js';
import { refusingUnstorableText } from './text-arguments.js';
import { RECORD_PUBLICATION_RESOLVERS } from './record-publication.js';

/** `ModelRecord.data`: the JSON text as stored when the record's data has not been parsed (the answer copies it). */
const recordData = sourceOnlyResolver((record: unknown): unknown => {
  const stored = record as StoredRecord;
  return unparsedData(stored) ?? stored.data;
});

/** `FieldDefinition.indexed` and `multiple`: stored only when true. */
const FIELD_FLAG_RESOLVERS = {
  indexed: sourceOnlyResolver((field: unknown): boolean => (field as FieldDefinition).indexed === true),
  multiple: sourceOnlyResolver((field: unknown): boolean => (field as FieldDefinition).multiple === true),
};

/**
 * The resolver of one field, on the schema's context. graphql-js calls it with what the parent field resolved to
 * and with the arguments the SDL declares, coerced and checked: each resolver names their types in its own
 * parameters (`(token: ApiTokenInfo) => …`, `(_, { id }: { id: string }, context) => …`), which `never` here lets
 * it do. The context is the schema's own, checked against what the resolver reads of it.
 */
export type FieldResolver<TContext> = (source: never, args: never, context: TContext, info: GraphQLResolveInfo) => unknown;

/** The resolvers of one object type's fields, by field name. */
export type TypeResolvers<TContext> = Record<string, FieldResolver<TContext>>;

/** The resolvers of a schema, by object type name and field name. */
export type ResolverMap<TContext> = Record<string, TypeResolvers<TContext>>;

/** Builds a schema from SDL and attaches resolvers and the shared scalars by type and field name. */
export function buildExecutableSchema<TContext>(sdl: string, resolvers: ResolverMap<TContext>): GraphQLSchema {
  const schema = buildSchema(sdl);
  for (const [typeName, fields] of Object.entries(resolvers)) {
    const type = schema.getType(typeName);
    if (!(type instanceof GraphQLObjectType)) throw new Error(`No object type ${typeName} in the schema`);
    const typeFields = type.getFields();
    for (const [fieldName, resolve] of Object.entries(fields)) {
      const field = typeFields[fieldName];
      if (!field) throw new Error(`No field ${typeName}.${fieldName} in the schema`);
      // The one place the resolvers meet graphql-js, which passes the source and arguments FieldResolver describes.
      field.resolve = refusingUnstorableText(field.args, resolve as GraphQLFieldResolver<unknown, TContext>);
    }
  }
  // A record's data as the JSON text the database returned, when it has not been parsed: the answer copies it.
  const recordType = schema.getType('ModelRecord');
  const dataField = recordType instanceof GraphQLObjectType ? recordType.getFields().data : undefined;
  if (dataField && !dataField.resolve) dataField.resolve = recordData;
  if (recordType instanceof GraphQLObjectType) {
    const recordFields = recordType.getFields();
    for (const [name, resolve] of Object.entries(RECORD_PUBLICATION_RESOLVERS)) {
      const field = recordFields[name];
      if (field && !field.resolve) field.resolve = resolve;
    }
  }
  const fieldType = schema.getType('FieldDefinition');
  for (const [name, resolve] of Object.entries(FIELD_FLAG_RESOLVERS)) {
    const flag = fieldType instanceof GraphQLObjectType ? fieldType.getFields()[name] : undefined;
    if (flag && !flag.resolve) flag.resolve = resolve;
  }
  for (const scalar of [JsonScalar, DateTimeScalar]) {
    const type = schema.getType(scalar.name);
    if (type instanceof GraphQLScalarType) Object.assign(type, scalar.toConfig(), { extensions: {} });
  }
  return schema;
}

/** A resolver for a namespace field (`model`, `record`): returns an empty object its sub-fields resolve on. */
export const namespace = () => ({});
