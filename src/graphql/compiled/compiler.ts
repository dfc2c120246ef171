// Making a plan: graphql-js's collectFields (fragments, @skip/@include) over an object type's selection sets,
// one FieldPlan per response key, and a completer (graphql-js's completeValue) for each field's type.
import {
  getDirectiveValues,
  GraphQLError,
  GraphQLIncludeDirective,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSkipDirective,
  getNullableType,
  isAbstractType,
  isLeafType,
  Kind,
  SchemaMetaFieldDef,
  typeFromAST,
  TypeMetaFieldDef,
  type FieldNode,
  type FragmentDefinitionNode,
  type FragmentSpreadNode,
  type GraphQLField,
  type GraphQLLeafType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type InlineFragmentNode,
  type SelectionSetNode,
} from 'graphql';
import { inspect } from 'graphql/jsutils/inspect.js';
import { completeList, completeObject } from './complete.js';
import { DirectiveRefused, INCLUDE_ALL, type Conditions } from './conditions.js';
import { flatOneByte, internalised, jsonOf } from './json.js';
import type { Complete, FieldPlan, SourceResolver } from './plan.js';

const sourceOnlyResolvers = new WeakMap<object, SourceResolver>();

/** Marks a resolver that reads only its source (no arguments, context or info), so the plan may call it so. */
export function sourceOnlyResolver<T extends SourceResolver>(resolve: T): T {
  sourceOnlyResolvers.set(resolve, resolve);
  return resolve;
}

export class NotCompilable extends Error {}

export class Compiler {
  constructor(
    private readonly schema: GraphQLSchema,
    private readonly fragments: Record<string, FragmentDefinitionNode>,
    private readonly conditions: Conditions,
  ) {}

  /** graphql-js's collectFields over several selection sets (the merged nodes of one response key), compiled. */
  fieldPlans(type: GraphQLObjectType, selectionSets: readonly SelectionSetNode[]): FieldPlan[] {
    if (type.isTypeOf) throw new NotCompilable();
    const grouped = new Map<string, FieldNode[]>();
    const visited = new Set<string>();
    for (const selectionSet of selectionSets) this.collect(type, selectionSet, grouped, visited);
    return [...grouped].map(([responseKey, nodes]) => this.fieldPlan(type, responseKey, nodes));
  }

  private collect(
    type: GraphQLObjectType,
    selectionSet: SelectionSetNode,
    grouped: Map<string, FieldNode[]>,
    visited: Set<string>,
  ): void {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (!this.included(selection)) continue;
        const key = selection.alias ? selection.alias.value : selection.name.value;
        const nodes = grouped.get(key);
        if (nodes) nodes.push(selection);
        else grouped.set(key, [selection]);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (!this.included(selection)) continue;
        if (selection.typeCondition && !this.matches(selection.typeCondition, type)) continue;
        this.collect(type, selection.selectionSet, grouped, visited);
      } else {
        const name = selection.name.value;
        if (visited.has(name) || !this.included(selection)) continue;
        visited.add(name);
        const fragment = this.fragments[name];
        if (!fragment || !this.matches(fragment.typeCondition, type)) continue;
        this.collect(type, fragment.selectionSet, grouped, visited);
      }
    }
  }

  /** graphql-js's shouldIncludeNode. */
  private included(node: FieldNode | InlineFragmentNode | FragmentSpreadNode): boolean {
    if (!node.directives || node.directives.length === 0 || this.conditions === INCLUDE_ALL) return true;
    try {
      if (getDirectiveValues(GraphQLSkipDirective, node, this.conditions)?.if === true) return false;
      if (getDirectiveValues(GraphQLIncludeDirective, node, this.conditions)?.if === false) return false;
    } catch (error) {
      if (error instanceof GraphQLError) throw new DirectiveRefused(error);
      throw error;
    }
    return true;
  }

  private matches(condition: FragmentDefinitionNode['typeCondition'], type: GraphQLObjectType): boolean {
    const conditionType = typeFromAST(this.schema, condition);
    if (conditionType === type) return true;
    if (conditionType && isAbstractType(conditionType)) throw new NotCompilable();
    return false;
  }

  private fieldPlan(parentType: GraphQLObjectType, responseKey: string, nodes: FieldNode[]): FieldPlan {
    const fieldName = internalised(nodes[0]!.name.value);
    const prefix = flatOneByte(`${JSON.stringify(responseKey)}:`);
    const place = { prefix, responseKey, fieldName, nodes, parentType };
    if (fieldName === '__typename') {
      const name = flatOneByte(JSON.stringify(parentType.name));
      return {
        ...place,
        returnType: new GraphQLNonNull(this.schema.getType('String') as GraphQLLeafType),
        definition: null,
        resolve: undefined,
        hasArguments: false,
        leafFromSource: false,
        readSource: undefined,
        complete: () => name,
      };
    }
    const definition = this.fieldDefinition(parentType, fieldName);
    if (!definition) throw new NotCompilable();
    const readSource = definition.resolve === undefined ? undefined : sourceOnlyResolvers.get(definition.resolve);
    return {
      ...place,
      returnType: definition.type,
      definition,
      resolve: definition.resolve,
      hasArguments: definition.args.length > 0,
      leafFromSource:
        definition.args.length === 0 &&
        isLeafType(getNullableType(definition.type)) &&
        (definition.resolve === undefined || readSource !== undefined),
      readSource,
      complete: this.completer(definition.type, nodes),
    };
  }

  /** graphql-js's getFieldDef: the introspection fields of the query type, or the type's own. */
  private fieldDefinition(parentType: GraphQLObjectType, fieldName: string): GraphQLField<unknown, unknown> | undefined {
    if (parentType === this.schema.getQueryType()) {
      if (fieldName === SchemaMetaFieldDef.name) return SchemaMetaFieldDef;
      if (fieldName === TypeMetaFieldDef.name) return TypeMetaFieldDef;
    }
    return parentType.getFields()[fieldName];
  }

  /** graphql-js's completeValue for a type, as a function. */
  private completer(type: GraphQLOutputType, nodes: readonly FieldNode[]): Complete {
    if (type instanceof GraphQLNonNull) {
      const inner = this.nullableCompleter(type.ofType as GraphQLOutputType, nodes);
      return (run, field, path, value) => {
        if (value instanceof Error) throw value;
        if (value === null || value === undefined) {
          throw new Error(`Cannot return null for non-nullable field ${field.parentType.name}.${field.fieldName}.`);
        }
        return inner(run, field, path, value);
      };
    }
    const inner = this.nullableCompleter(type, nodes);
    return (run, field, path, value) => {
      if (value instanceof Error) throw value;
      if (value === null || value === undefined) return 'null';
      return inner(run, field, path, value);
    };
  }

  /** Completes a value that is neither null nor an Error. */
  private nullableCompleter(type: GraphQLOutputType, nodes: readonly FieldNode[]): Complete {
    if (type instanceof GraphQLList) {
      const itemType = type.ofType;
      const item = this.completer(itemType, nodes);
      return (run, field, path, value) => completeList(run, field, path, value, item, itemType);
    }
    if (isLeafType(type)) {
      return (_run, _field, _path, value) => {
        const serialized = type.serialize(value);
        if (serialized === null || serialized === undefined) {
          throw new Error(
            `Expected \`${inspect(type)}.serialize(${inspect(value)})\` to return non-nullable value, returned: ${inspect(serialized)}`,
          );
        }
        return jsonOf(serialized);
      };
    }
    if (type instanceof GraphQLObjectType) {
      let fields: FieldPlan[];
      try {
        fields = this.fieldPlans(
          type,
          nodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : [])),
        );
      } catch (error) {
        // graphql-js collects an object's fields when it completes one: a refused condition fails each object.
        if (!(error instanceof DirectiveRefused)) throw error;
        return () => {
          throw error.error;
        };
      }
      return (run, _field, path, value) => completeObject(run, fields, value, path);
    }
    throw new NotCompilable();
  }
}
