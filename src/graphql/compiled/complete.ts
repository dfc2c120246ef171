// Completing objects and lists: an object's fields side by side, the root mutation fields one after another,
// a list's items; the promises chained as graphql-js chains them.
import { GraphQLError, type GraphQLOutputType } from 'graphql';
import { executeField, fieldError, isPromise } from './execute-field.js';
import { listJson, objectJson } from './json.js';
import type { Complete, FieldPlan, Json, Path, Run } from './plan.js';

/** Fields of an object side by side (graphql-js's executeFields). */
export function completeObject(
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

/**
 * Root mutation fields one after another (graphql-js's executeFieldsSerially, and the promiseReduce it uses):
 * an error that nulls the root stops the rest.
 */
export function completeSerially(run: Run, fields: readonly FieldPlan[], source: unknown): string | Promise<string> {
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
export function completeList(
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
