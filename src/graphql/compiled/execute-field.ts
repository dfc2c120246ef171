// Running one field of a plan (graphql-js's executeField): its resolver called (or its source read), the value
// completed, and an error made a located error, a null, or passed up to the parent.
import {
  getArgumentValues,
  GraphQLNonNull,
  locatedError,
  responsePathAsArray,
  type FieldNode,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
} from 'graphql';
import type { FieldPlan, Json, Path, Run } from './plan.js';

export function isPromise(value: unknown): value is Promise<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

export function executeField(run: Run, field: FieldPlan, source: unknown, parentPath: Path | undefined): Json | Promise<Json> {
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
export function fieldError(
  run: Run,
  nodes: readonly FieldNode[],
  type: GraphQLOutputType,
  path: Path,
  rawError: unknown,
): string {
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
