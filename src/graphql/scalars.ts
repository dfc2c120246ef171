import { GraphQLScalarType, Kind, type ValueNode } from 'graphql';

function literalToJson(node: ValueNode, variables: Record<string, unknown> | null | undefined): unknown {
  switch (node.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
      return node.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(node.value);
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return node.values.map((value) => literalToJson(value, variables));
    case Kind.OBJECT: {
      const result: Record<string, unknown> = {};
      for (const field of node.fields) {
        Object.defineProperty(result, field.name.value, {
          value: literalToJson(field.value, variables),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return result;
    }
    case Kind.VARIABLE:
      return variables?.[node.name.value];
    case Kind.ENUM:
      return node.value;
  }
}

export const JsonScalar = new GraphQLScalarType({
  name: 'JSON',
  description: 'Any JSON value',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: literalToJson,
});

export const DateTimeScalar = new GraphQLScalarType({
  name: 'DateTime',
  description: 'An ISO 8601 date-time string',
  serialize: (value) => (value instanceof Date ? value.toISOString() : value),
  parseValue: (value) => value,
});
