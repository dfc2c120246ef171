// A compiled execution path for the operations the service answers all day (record.create, record.list, …).
// graphql-js walks the document for every request and every list item: it collects fields, builds an info
// object and a path for each field, and checks every type again; then the answer is serialised by JSON.stringify.
// Here an operation is turned once into a plan (fields collected and merged, types resolved, one function per
// field), and running the plan writes the answer's JSON text directly: record data stored as JSON text is copied
// into it as it is (JsonText), not parsed and serialised again.
//
// The semantics are graphql-js's (execute.js of graphql 16): resolvers get the same arguments, including an info
// object; a resolver error becomes a located error and null, and a null in a non-null position goes up to the
// nearest nullable field; root mutation fields run one after another, other fields side by side; errors are
// reported in the order they happen. Operations with what the plan does not cover — @skip/@include,
// introspection (__schema, __type), abstract types, isTypeOf — are not compiled: they run on graphql-js.
import {
  getArgumentValues,
  GraphQLError,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  getNullableType,
  isAbstractType,
  isLeafType,
  Kind,
  locatedError,
  responsePathAsArray,
  typeFromAST,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLFieldResolver,
  type GraphQLLeafType,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { JsonText } from '../store/json-text.js';

interface Path {
  readonly prev: Path | undefined;
  readonly key: string | number;
  readonly typename: string | undefined;
}

/** What one run of a plan shares. */
interface Run {
  readonly schema: GraphQLSchema;
  readonly fragments: Record<string, FragmentDefinitionNode>;
  readonly rootValue: unknown;
  readonly operation: OperationDefinitionNode;
  readonly variableValues: Record<string, unknown>;
  readonly contextValue: unknown;
  readonly errors: GraphQLError[];
}

/** Completes a resolved value of the field's type (or of a list item of it) to JSON text; throws on an error. */
type Complete = (run: Run, field: FieldPlan, path: Path, value: unknown) => string | Promise<string>;

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
   * A leaf read from its source (graphql-js's default resolver, or a resolver marked with `sourceOnlyResolver`):
   * run without a path, arguments or info object unless something goes wrong.
   */
  readonly leafFromSource: boolean;
  readonly complete: Complete;
}

const sourceOnlyResolvers = new WeakSet<GraphQLFieldResolver<unknown, unknown>>();

/** Marks a resolver that reads only its source (no arguments, context or info), so the plan may call it so. */
export function sourceOnlyResolver<T extends GraphQLFieldResolver<unknown, unknown>>(resolve: T): T {
  sourceOnlyResolvers.add(resolve);
  return resolve;
}

export interface CompiledOperation {
  /** Runs the operation: the `data` JSON text and the errors raised (graphql-js's located errors). */
  run(contextValue: unknown, variableValues: Record<string, unknown>, rootValue: unknown): Promise<{ data: string; errors: GraphQLError[] }>;
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

function compile(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): CompiledOperation {
  const rootType = schema.getRootType(operation.operation);
  if (!rootType) throw new NotCompilable();
  const fragments: Record<string, FragmentDefinitionNode> = Object.create(null);
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
  }
  const compiler = new Compiler(schema, fragments);
  const fields = compiler.fieldPlans(rootType, [operation.selectionSet]);
  const serial = operation.operation === 'mutation';
  return {
    async run(contextValue, variableValues, rootValue) {
      const run: Run = { schema, fragments, rootValue, operation, variableValues, contextValue, errors: [] };
      let data: string;
      try {
        data = await (serial ? completeSerially(run, fields, rootValue) : completeObject(run, fields, rootValue, undefined));
      } catch (error) {
        run.errors.push(error as GraphQLError);
        data = 'null';
      }
      return { data, errors: run.errors };
    },
  };
}

class Compiler {
  constructor(
    private readonly schema: GraphQLSchema,
    private readonly fragments: Record<string, FragmentDefinitionNode>,
  ) {}

  /** graphql-js's collectFields over several selection sets (the merged nodes of one response key), compiled. */
  fieldPlans(type: GraphQLObjectType, selectionSets: readonly SelectionSetNode[]): FieldPlan[] {
    if (type.isTypeOf) throw new NotCompilable();
    const grouped = new Map<string, FieldNode[]>();
    const visited = new Set<string>();
    for (const selectionSet of selectionSets) this.collect(type, selectionSet, grouped, visited);
    return [...grouped].map(([responseKey, nodes]) => this.fieldPlan(type, responseKey, nodes));
  }

  private collect(type: GraphQLObjectType, selectionSet: SelectionSetNode, grouped: Map<string, FieldNode[]>, visited: Set<string>): void {
    for (const selection of selectionSet.selections) {
      if (selection.directives && selection.directives.length > 0) throw new NotCompilable();
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias ? selection.alias.value : selection.name.value;
        const nodes = grouped.get(key);
        if (nodes) nodes.push(selection);
        else grouped.set(key, [selection]);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (selection.typeCondition && !this.matches(selection.typeCondition, type)) continue;
        this.collect(type, selection.selectionSet, grouped, visited);
      } else {
        const name = selection.name.value;
        if (visited.has(name)) continue;
        visited.add(name);
        const fragment = this.fragments[name];
        if (!fragment || !this.matches(fragment.typeCondition, type)) continue;
        this.collect(type, fragment.selectionSet, grouped, visited);
      }
    }
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
        complete: () => name,
      };
    }
    if (fieldName.startsWith('__')) throw new NotCompilable();
    const definition = parentType.getFields()[fieldName];
    if (!definition) throw new NotCompilable();
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
        isLeafType(getNullableType(definition.type)) &&
        (definition.resolve === undefined || (definition.args.length === 0 && sourceOnlyResolvers.has(definition.resolve))),
      complete: this.completer(definition.type, nodes),
    };
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
      const itemType = type.ofType as GraphQLOutputType;
      const item = this.completer(itemType, nodes);
      return (run, field, path, value) => completeList(run, field, path, value, item, itemType);
    }
    if (isLeafType(type)) {
      return (_run, _field, _path, value) => {
        const serialized = type.serialize(value);
        if (serialized === null || serialized === undefined) {
          throw new Error(`Expected \`${type.name}.serialize(${String(value)})\` to return non-nullable value, returned: ${String(serialized)}`);
        }
        return jsonOf(serialized);
      };
    }
    if (type instanceof GraphQLObjectType) {
      const fields = this.fieldPlans(
        type,
        nodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : [])),
      );
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

/** Characters JSON.stringify might escape (and, to be safe, everything outside printable ASCII). */
const NEEDS_ESCAPING = /["\\\u0000-\u001f\u007f-\uffff]/;

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

function executeField(run: Run, field: FieldPlan, source: unknown, parentPath: Path | undefined): string | Promise<string> {
  if (!field.leafFromSource) return executeResolvedField(run, field, source, pathTo(parentPath, field));
  let value: unknown;
  try {
    if (field.resolve) {
      value = field.resolve(source, {}, run.contextValue, undefined as never);
    } else if ((typeof source === 'object' && source !== null) || typeof source === 'function') {
      value = (source as Record<string, unknown>)[field.fieldName];
      // graphql-js's default resolver calls a method with (args, context, info).
      if (typeof value === 'function') return executeResolvedField(run, field, source, pathTo(parentPath, field));
    }
    // Leaf completers do not use the path.
    if (!isPromise(value)) return field.complete(run, field, parentPath as Path, value) as string;
  } catch (error) {
    return fieldError(run, field, field.returnType, pathTo(parentPath, field), error);
  }
  return completeResult(run, field, pathTo(parentPath, field), value);
}

function pathTo(parentPath: Path | undefined, field: FieldPlan): Path {
  return { prev: parentPath, key: field.responseKey, typename: field.parentType.name };
}

/** graphql-js's executeField. */
function executeResolvedField(run: Run, field: FieldPlan, source: unknown, path: Path): string | Promise<string> {
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
            ? (source as Record<string, (...args: unknown[]) => unknown>)[field.fieldName]!(args, run.contextValue, resolveInfo(run, field, path))
            : property;
      }
    }
  } catch (error) {
    return fieldError(run, field, field.returnType, path, error);
  }
  return completeResult(run, field, path, result);
}

/** Completes a field's resolved value (or promise of it); an error nulls the field or goes up. */
function completeResult(run: Run, field: FieldPlan, path: Path, result: unknown): string | Promise<string> {
  try {
    const completed = isPromise(result)
      ? result.then((resolved) => field.complete(run, field, path, resolved))
      : field.complete(run, field, path, result);
    if (isPromise(completed)) return completed.then(undefined, (error: unknown) => fieldError(run, field, field.returnType, path, error));
    return completed;
  } catch (error) {
    return fieldError(run, field, field.returnType, path, error);
  }
}

/** A field's (or list item's) error: null and an error, or up to the parent when the position is non-null. */
function fieldError(run: Run, field: FieldPlan, type: GraphQLOutputType, path: Path, rawError: unknown): string {
  const error = locatedError(rawError, field.nodes, responsePathAsArray(path));
  if (type instanceof GraphQLNonNull) throw error;
  run.errors.push(error);
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
function completeObject(run: Run, fields: readonly FieldPlan[], source: unknown, path: Path | undefined): string | Promise<string> {
  const parts = new Array<string | Promise<string>>(fields.length);
  let pending = false;
  try {
    for (let index = 0; index < fields.length; index++) {
      const part = executeField(run, fields[index]!, source, path);
      if (typeof part !== 'string') pending = true;
      parts[index] = part;
    }
  } catch (error) {
    // As graphql-js: wait for the fields already running (they may add errors), then give up the object.
    if (pending) return Promise.allSettled(parts).then(() => Promise.reject(error));
    throw error;
  }
  if (!pending) return objectJson(fields, parts as string[]);
  return Promise.all(parts).then((texts) => objectJson(fields, texts));
}

function objectJson(fields: readonly FieldPlan[], texts: readonly string[]): string {
  let json = '{';
  for (let index = 0; index < fields.length; index++) {
    if (index > 0) json += ',';
    json += fields[index]!.prefix + texts[index]!;
  }
  return `${json}}`;
}

/** Root mutation fields one after another (graphql-js's executeFieldsSerially): an error that nulls the root stops the rest. */
async function completeSerially(run: Run, fields: readonly FieldPlan[], source: unknown): Promise<string> {
  const texts: string[] = [];
  for (const field of fields) texts.push(await executeField(run, field, source, undefined));
  return objectJson(fields, texts);
}

function completeList(
  run: Run,
  field: FieldPlan,
  path: Path,
  value: unknown,
  item: Complete,
  itemType: GraphQLOutputType,
): string | Promise<string> {
  if (typeof value !== 'object' || value === null || typeof (value as Iterable<unknown>)[Symbol.iterator] !== 'function') {
    throw new GraphQLError(`Expected Iterable, but did not find one for field "${field.parentType.name}.${field.fieldName}".`);
  }
  const parts: (string | Promise<string>)[] = [];
  let pending = false;
  let index = 0;
  for (const element of value as Iterable<unknown>) {
    const itemPath: Path = { prev: path, key: index++, typename: undefined };
    let part: string | Promise<string>;
    try {
      const completed = isPromise(element)
        ? element.then((resolved) => item(run, field, itemPath, resolved))
        : item(run, field, itemPath, element);
      part = isPromise(completed)
        ? completed.then(undefined, (error: unknown) => fieldError(run, field, itemType, itemPath, error))
        : completed;
    } catch (error) {
      part = fieldError(run, field, itemType, itemPath, error);
    }
    if (typeof part !== 'string') pending = true;
    parts.push(part);
  }
  if (!pending) return `[${(parts as string[]).join(',')}]`;
  return Promise.all(parts).then((texts) => `[${texts.join(',')}]`);
}
