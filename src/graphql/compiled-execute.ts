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
  getArgumentValues,
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
  locatedError,
  OperationTypeNode,
  responsePathAsArray,
  SchemaMetaFieldDef,
  typeFromAST,
  TypeMetaFieldDef,
  type DirectiveNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type FragmentSpreadNode,
  type GraphQLField,
  type GraphQLFieldResolver,
  type GraphQLLeafType,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type InlineFragmentNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { inspect } from 'graphql/jsutils/inspect.js';
import { JsonText } from '../domain/json-text.js';

interface Path {
  readonly prev: Path | undefined;
  readonly key: string | number;
  readonly typename: string | undefined;
}

/**
 * graphql-js's CollectedErrors: an error is kept unless its position, or a position above it, has already been
 * nulled by an earlier error (fields still running there report errors nobody will see).
 */
class CollectedErrors {
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
interface Run {
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
type Json = string | Json[];

/** Completes a resolved value of the field's type (or of a list item of it); throws on an error. */
type Complete = (run: Run, field: FieldPlan, path: Path, value: unknown) => Json | Promise<Json>;

interface FieldPlan {
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
type SourceResolver = (source: unknown) => unknown;

const sourceOnlyResolvers = new WeakMap<object, SourceResolver>();

/** Marks a resolver that reads only its source (no arguments, context or info), so the plan may call it so. */
export function sourceOnlyResolver<T extends SourceResolver>(resolve: T): T {
  sourceOnlyResolvers.set(resolve, resolve);
  return resolve;
}

export interface CompiledOperation {
  /** Runs the operation: the `data` JSON text and the errors raised (graphql-js's located errors), in its order. */
  run(
    contextValue: unknown,
    variableValues: Record<string, unknown>,
    rootValue: unknown,
  ): Promise<{ data: string; errors: GraphQLError[] }>;
}

class NotCompilable extends Error {}

const plans = new WeakMap<GraphQLSchema, WeakMap<OperationDefinitionNode, CompiledOperation | null>>();

/** The compiled plan of an operation of a validated document, made once; null when it must run on graphql-js. */
export function compiledOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
): CompiledOperation | null {
  let bySchema = plans.get(schema);
  if (!bySchema) {
    bySchema = new WeakMap();
    plans.set(schema, bySchema);
  }
  let plan = bySchema.get(operation);
  if (plan === undefined) {
    try {
      plan = compile(schema, document, operation);
    } catch (error) {
      if (!(error instanceof NotCompilable)) throw error;
      plan = null;
    }
    bySchema.set(operation, plan);
  }
  return plan;
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

/** Variable values that decide @skip/@include; INCLUDE_ALL: every condition holds. */
type Conditions = Record<string, unknown>;
const INCLUDE_ALL: Conditions = {};

function conditionKey(variableValues: Record<string, unknown>, name: string): string {
  if (!Object.prototype.hasOwnProperty.call(variableValues, name)) return 'u';
  const value = variableValues[name];
  return value === true ? 't' : value === false ? 'f' : 'n';
}

/** The variables the operation's and its fragments' @skip/@include conditions use. */
function variablesInConditions(operation: OperationDefinitionNode, fragments: Record<string, FragmentDefinitionNode>): string[] {
  const names = new Set<string>();
  const visit = (selectionSet: SelectionSetNode | undefined) => {
    for (const selection of selectionSet?.selections ?? []) {
      for (const directive of selection.directives ?? []) {
        if (!isCondition(directive)) continue;
        for (const argument of directive.arguments ?? []) {
          if (argument.value.kind === Kind.VARIABLE) names.add(argument.value.name.value);
        }
      }
      if (selection.kind !== Kind.FRAGMENT_SPREAD) visit(selection.selectionSet);
    }
  };
  visit(operation.selectionSet);
  for (const fragment of Object.values(fragments)) visit(fragment.selectionSet);
  return [...names].sort();
}

function isCondition(directive: DirectiveNode): boolean {
  return directive.name.value === GraphQLSkipDirective.name || directive.name.value === GraphQLIncludeDirective.name;
}

/** graphql-js refused a @skip/@include (its variable null); carries the error to where graphql-js raises it. */
class DirectiveRefused extends Error {
  constructor(readonly error: GraphQLError) {
    super(error.message);
  }
}

class Compiler {
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
    if (fieldName === '__typename') {
      const name = flatOneByte(JSON.stringify(parentType.name));
      return {
        prefix,
        responseKey,
        fieldName,
        nodes,
        parentType,
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
      prefix,
      responseKey,
      fieldName,
      nodes,
      parentType,
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

/**
 * The string table's copy of a name: reading `source[name]` with a name cut out of the query text made V8 look
 * the name up in its string table on every read.
 */
function internalised(name: string): string {
  return Object.keys({ [name]: true })[0]!;
}

/**
 * A fresh sequential copy of an ASCII string. Names from the parsed document can be internalised ("thin")
 * strings, which V8 marks two-byte: text joined with them becomes two-byte, doubling the answer's memory and
 * the work of writing it out as UTF-8.
 */
function flatOneByte(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

/** Characters JSON.stringify might escape (and, to be safe, everything outside printable ASCII, ` ` to `~`). */
const NEEDS_ESCAPING = /[^\u0020\u0021\u0023-\u005b\u005d-\u007e]/;

/** JSON.stringify of a string; ids and times (most strings of an answer) need no escaping and skip its setup. */
function quote(text: string): string {
  return text.length <= 256 && !NEEDS_ESCAPING.test(text) ? `"${text}"` : JSON.stringify(text);
}

/** JSON text of a serialised leaf value: JSON text is copied as it is. */
function jsonOf(value: unknown): string {
  if (typeof value === 'string') return quote(value);
  if (value instanceof JsonText) return value.text;
  return JSON.stringify(value) ?? 'null';
}

function isPromise(value: unknown): value is Promise<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

function executeField(run: Run, field: FieldPlan, source: unknown, parentPath: Path | undefined): Json | Promise<Json> {
  if (!field.leafFromSource) return executeResolvedField(run, field, source, pathTo(parentPath, field));
  let value: unknown;
  try {
    if (field.readSource) {
      value = field.readSource(source);
    } else if ((typeof source === 'object' && source !== null) || typeof source === 'function') {
      value = (source as Record<string, unknown>)[field.fieldName];
      // graphql-js's default resolver calls a method with (args, context, info).
      if (typeof value === 'function') return executeResolvedField(run, field, source, pathTo(parentPath, field));
    }
    // Leaf completers do not use the path.
    if (!isPromise(value)) return field.complete(run, field, parentPath as Path, value);
  } catch (error) {
    return fieldError(run, field.nodes, field.returnType, pathTo(parentPath, field), error);
  }
  return completeResult(run, field, pathTo(parentPath, field), value);
}

function pathTo(parentPath: Path | undefined, field: FieldPlan): Path {
  return { prev: parentPath, key: field.responseKey, typename: field.parentType.name };
}

/** graphql-js's executeField. */
function executeResolvedField(run: Run, field: FieldPlan, source: unknown, path: Path): Json | Promise<Json> {
  let result: unknown;
  try {
    if (field.definition === null) {
      result = field.parentType.name;
    } else {
      const args = field.hasArguments ? getArgumentValues(field.definition, field.nodes[0]!, run.variableValues) : {};
      if (field.resolve) {
        result = field.resolve(source, args, run.contextValue, resolveInfo(run, field, path));
      } else if ((typeof source === 'object' && source !== null) || typeof source === 'function') {
        // graphql-js's defaultFieldResolver.
        const property = (source as Record<string, unknown>)[field.fieldName];
        result =
          typeof property === 'function'
            ? (source as Record<string, (...args: unknown[]) => unknown>)[field.fieldName]!(
                args,
                run.contextValue,
                resolveInfo(run, field, path),
              )
            : property;
      }
    }
  } catch (error) {
    return fieldError(run, field.nodes, field.returnType, path, error);
  }
  return completeResult(run, field, path, result);
}

/** Completes a field's resolved value (or promise of it); an error nulls the field or goes up. */
function completeResult(run: Run, field: FieldPlan, path: Path, result: unknown): Json | Promise<Json> {
  try {
    const completed = isPromise(result)
      ? result.then((resolved) => field.complete(run, field, path, resolved))
      : field.complete(run, field, path, result);
    if (isPromise(completed))
      return completed.then(undefined, (error: unknown) => fieldError(run, field.nodes, field.returnType, path, error));
    return completed;
  } catch (error) {
    return fieldError(run, field.nodes, field.returnType, path, error);
  }
}

/** graphql-js's handleFieldError: null and an error, or up to the parent when the position is non-null. */
function fieldError(run: Run, nodes: readonly FieldNode[], type: GraphQLOutputType, path: Path, rawError: unknown): string {
  const error = locatedError(rawError, nodes, responsePathAsArray(path));
  if (type instanceof GraphQLNonNull) throw error;
  run.errors.add(error, path);
  return 'null';
}

function resolveInfo(run: Run, field: FieldPlan, path: Path): GraphQLResolveInfo {
  return {
    fieldName: field.fieldName,
    fieldNodes: field.nodes,
    returnType: field.returnType,
    parentType: field.parentType,
    path,
    schema: run.schema,
    fragments: run.fragments,
    rootValue: run.rootValue,
    operation: run.operation,
    variableValues: run.variableValues,
  };
}

/** Fields of an object side by side (graphql-js's executeFields). */
function completeObject(
  run: Run,
  fields: readonly FieldPlan[],
  source: unknown,
  path: Path | undefined,
): string | Promise<string> {
  const parts = new Array<Json | Promise<Json>>(fields.length);
  let pending = false;
  let index = 0;
  try {
    for (; index < fields.length; index++) {
      const part = executeField(run, fields[index]!, source, path);
      // Completed synchronously, a value is always text (a list is joined at once).
      if (typeof part !== 'string') pending = true;
      parts[index] = part;
    }
  } catch (error) {
    // As graphql-js: wait for the fields already running (an error of theirs may come first), then give up the object.
    if (pending) {
      return Promise.all(parts.slice(0, index))
        .then(ignore)
        .finally(() => {
          throw error;
        }) as Promise<never>;
    }
    throw error;
  }
  if (!pending) return objectJson(fields, parts as Json[]);
  return Promise.all(parts).then((texts) => objectJson(fields, texts));
}

function ignore(): void {}

function objectJson(fields: readonly FieldPlan[], texts: readonly Json[]): string {
  let json = '{';
  for (let index = 0; index < fields.length; index++) {
    if (index > 0) json += ',';
    const text = texts[index]!;
    json += fields[index]!.prefix + (typeof text === 'string' ? text : listJson(text));
  }
  return `${json}}`;
}

function listJson(items: readonly Json[]): string {
  let json = '[';
  for (let index = 0; index < items.length; index++) {
    if (index > 0) json += ',';
    const item = items[index]!;
    json += typeof item === 'string' ? item : listJson(item);
  }
  return `${json}]`;
}

/**
 * Root mutation fields one after another (graphql-js's executeFieldsSerially, and the promiseReduce it uses):
 * an error that nulls the root stops the rest.
 */
function completeSerially(run: Run, fields: readonly FieldPlan[], source: unknown): string | Promise<string> {
  const texts = new Array<Json>(fields.length);
  const step = (index: number): void | Promise<void> => {
    const part = executeField(run, fields[index]!, source, undefined);
    if (!isPromise(part)) {
      texts[index] = part;
      return;
    }
    return part.then((text) => {
      texts[index] = text;
    });
  };
  let done: void | Promise<void> = undefined;
  for (let index = 0; index < fields.length; index++) {
    done = isPromise(done) ? done.then(() => step(index)) : step(index);
  }
  return isPromise(done) ? done.then(() => objectJson(fields, texts)) : objectJson(fields, texts);
}

/** graphql-js's completeListValue. */
function completeList(
  run: Run,
  field: FieldPlan,
  path: Path,
  value: unknown,
  item: Complete,
  itemType: GraphQLOutputType,
): Json | Promise<Json> {
  if (typeof value !== 'object' || value === null || typeof (value as Iterable<unknown>)[Symbol.iterator] !== 'function') {
    throw new GraphQLError(`Expected Iterable, but did not find one for field "${field.parentType.name}.${field.fieldName}".`);
  }
  const parts: (Json | Promise<Json>)[] = [];
  let pending = false;
  let index = 0;
  try {
    for (const element of value as Iterable<unknown>) {
      const itemPath: Path = { prev: path, key: index++, typename: undefined };
      let part: Json | Promise<Json>;
      try {
        const completed = isPromise(element)
          ? element.then((resolved) => item(run, field, itemPath, resolved))
          : item(run, field, itemPath, element);
        part = isPromise(completed)
          ? completed.then(undefined, (error: unknown) => fieldError(run, field.nodes, itemType, itemPath, error))
          : completed;
      } catch (error) {
        part = fieldError(run, field.nodes, itemType, itemPath, error);
      }
      if (typeof part !== 'string') pending = true;
      parts.push(part);
    }
  } catch (error) {
    // The list is given up at once (as graphql-js does); items still running must not fail unheard.
    if (pending) for (const part of parts) if (typeof part !== 'string') (part as Promise<Json>).then(undefined, ignore);
    throw error;
  }
  if (!pending) return listJson(parts as Json[]);
  return Promise.all(parts);
}
