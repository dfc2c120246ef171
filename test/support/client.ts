// A tiny GraphQL-over-HTTP client for the black-box tests, plus helpers to set up a workspace and models.
import assert from 'node:assert/strict';
import type { BootstrapArgs, TestServer } from './server.js';

export interface Credentials {
  token?: string;
  workspaceId?: string;
  /** A Cookie header (the admin application's session: `cs_session=…`). */
  cookie?: string;
  /** Sent as x-csrf-token (with a session cookie). */
  csrfToken?: string;
}

export interface GqlResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON body, or undefined when the body was not JSON (see `text`). */
  body: any;
  text: string;
}

export async function request(url: string, init: RequestInit = {}): Promise<GqlResponse> {
  const response = await fetch(url, init);
  const text = await response.text();
  let body: any;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, body, text };
}

export function authHeaders(credentials: Credentials): Record<string, string> {
  const headers: Record<string, string> = {};
  if (credentials.token !== undefined) headers.authorization = `Bearer ${credentials.token}`;
  if (credentials.workspaceId !== undefined) headers['x-workspace-id'] = credentials.workspaceId;
  if (credentials.cookie !== undefined) headers.cookie = credentials.cookie;
  if (credentials.csrfToken !== undefined) headers['x-csrf-token'] = credentials.csrfToken;
  return headers;
}

/** POSTs `{query, variables}` as JSON to `url` (a full endpoint URL). */
export function gql(
  url: string,
  credentials: Credentials,
  query: string,
  variables?: Record<string, unknown>,
  extraHeaders: Record<string, string> = {},
): Promise<GqlResponse> {
  return request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...authHeaders(credentials), ...extraHeaders },
    body: JSON.stringify(variables === undefined ? { query } : { query, variables }),
  });
}

/** Asserts an HTTP 200 answer without errors and returns `data`. */
export function dataOf(response: GqlResponse): any {
  assert.equal(response.status, 200, `expected HTTP 200, got ${response.status}: ${response.text}`);
  assert.equal(response.body?.errors, undefined, `unexpected errors: ${response.text}`);
  assert.ok(response.body?.data, `no data: ${response.text}`);
  return response.body.data;
}

/** The single error of a response (asserts there is exactly one). */
export function onlyError(response: GqlResponse): { message: string; extensions?: Record<string, any>; path?: unknown } {
  assert.ok(Array.isArray(response.body?.errors), `expected an errors array: ${response.status} ${response.text}`);
  assert.equal(response.body.errors.length, 1, `expected exactly one error: ${response.text}`);
  return response.body.errors[0];
}

/** Asserts exactly one error with that code (and HTTP status, 200 by default) and returns it. */
export function expectError(
  response: GqlResponse,
  code: string,
  status = 200,
): { message: string; extensions?: Record<string, any> } {
  assert.equal(response.status, status, `expected HTTP ${status}, got ${response.status}: ${response.text}`);
  const error = onlyError(response);
  assert.equal(typeof error.message, 'string');
  assert.equal(error.extensions?.code, code, `expected code ${code}: ${response.text}`);
  return error;
}

/**
 * Asserts a field refusal: BAD_USER_INPUT, message `<field>: <reason>` (or `<field>.<sub path>: <reason>` for a
 * value inside a translatable/object field), and returns the message.
 */
export function expectFieldError(response: GqlResponse, field: string): string {
  const error = expectError(response, 'BAD_USER_INPUT');
  const pattern = new RegExp(`^${field.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(\\.[^:]+)?: \\S`);
  assert.match(error.message, pattern, `message should name the field "${field}" first`);
  return error.message;
}

export const NOT_AUTHORIZED_BODY = { errors: [{ message: 'Not authorized', extensions: { code: 'UNAUTHENTICATED' } }] };

export interface FieldInput {
  key: string;
  label?: string;
  type: string;
  required?: boolean;
  relationTo?: string;
  relationType?: string;
  fields?: FieldInput[];
  indexed?: boolean;
  multiple?: boolean;
  acceptedTypes?: string[];
}

export interface ModelInput {
  name?: string;
  slug?: string;
  displayField?: string;
  description?: string;
  fields: FieldInput[];
  product?: { enabled: boolean; skuField?: string; priceField?: string };
  deliveryAccess?: string;
  drafts?: boolean;
}

let slugCounter = 0;
/** A slug unique within the test process (and unique enough across files, which use separate databases anyway). */
export function uniqueSlug(prefix = 'model'): string {
  slugCounter += 1;
  return `${prefix}-${slugCounter}-${Math.random().toString(36).slice(2, 8)}`;
}

export const RECORD_FIELDS = 'id modelId workspaceId data createdAt updatedAt createdBy updatedBy';
export const MODEL_FIELDS =
  'id workspaceId name slug description displayField deliveryAccess recordCount createdAt updatedAt ' +
  'product { enabled skuField priceField } ' +
  'fields { key label type required relationTo relationType fields { key label type required relationTo relationType } }';

/** An admin API client bound to one server, token and workspace. */
export class Admin {
  constructor(
    readonly server: TestServer,
    readonly credentials: { token: string; workspaceId: string },
  ) {}

  get token(): string {
    return this.credentials.token;
  }

  get workspaceId(): string {
    return this.credentials.workspaceId;
  }

  /** Raw request. */
  q(query: string, variables?: Record<string, unknown>, extraHeaders?: Record<string, string>): Promise<GqlResponse> {
    return gql(this.server.adminUrl, this.credentials, query, variables, extraHeaders);
  }

  /** Request that must succeed; returns `data`. */
  async ok(query: string, variables?: Record<string, unknown>): Promise<any> {
    return dataOf(await this.q(query, variables));
  }

  createModelRaw(input: ModelInput): Promise<GqlResponse> {
    const slug = input.slug ?? uniqueSlug();
    return this.q(`mutation($input: CreateModelDefinitionInput!) { model { create(input: $input) { ${MODEL_FIELDS} } } }`, {
      input: { name: input.name ?? `Model ${slug}`, ...input, slug },
    });
  }

  /** Creates a model and returns the created definition (with `id`). */
  async createModel(input: ModelInput): Promise<any> {
    const response = await this.createModelRaw(input);
    return dataOf(response).model.create;
  }

  /**
   * A product model: `sku` (text, required), `title` (text, required), `price` (number),
   * product settings skuField `sku`, priceField `price`.
   */
  async createProductModel(extra: Partial<ModelInput> = {}): Promise<any> {
    return this.createModel({
      slug: uniqueSlug('product'),
      name: 'Product',
      displayField: 'title',
      fields: [
        { key: 'sku', label: 'SKU', type: 'text', required: true },
        { key: 'title', label: 'Title', type: 'text', required: true },
        { key: 'price', label: 'Price', type: 'number' },
      ],
      product: { enabled: true, skuField: 'sku', priceField: 'price' },
      ...extra,
    });
  }

  /** A plain (non-product) model with `title` (text, required) and `note` (text). */
  async createSimpleModel(extra: Partial<ModelInput> = {}): Promise<any> {
    return this.createModel({
      slug: uniqueSlug('simple'),
      name: 'Simple',
      displayField: 'title',
      fields: [
        { key: 'title', label: 'Title', type: 'text', required: true },
        { key: 'note', label: 'Note', type: 'text' },
      ],
      ...extra,
    });
  }

  createRecordRaw(modelId: string, data: unknown): Promise<GqlResponse> {
    return this.q(`mutation($input: CreateModelRecordInput!) { record { create(input: $input) { ${RECORD_FIELDS} } } }`, {
      input: { modelId, data },
    });
  }

  async createRecord(modelId: string, data: unknown): Promise<any> {
    return dataOf(await this.createRecordRaw(modelId, data)).record.create;
  }

  importRaw(modelId: string, rows: unknown[]): Promise<GqlResponse> {
    return this.q(
      `mutation($input: ImportModelRecordsInput!) { record { import(input: $input) { importedCount errors { row message } } } }`,
      { input: { modelId, rows } },
    );
  }

  async importRows(
    modelId: string,
    rows: unknown[],
  ): Promise<{ importedCount: number; errors: { row: number; message: string }[] }> {
    return dataOf(await this.importRaw(modelId, rows)).record.import;
  }

  patchRaw(id: string, data: unknown): Promise<GqlResponse> {
    return this.q(`mutation($input: PatchModelRecordInput!) { record { patch(input: $input) { ${RECORD_FIELDS} } } }`, {
      input: { id, data },
    });
  }

  updateRaw(id: string, data: unknown): Promise<GqlResponse> {
    return this.q(`mutation($input: UpdateModelRecordInput!) { record { update(input: $input) { ${RECORD_FIELDS} } } }`, {
      input: { id, data },
    });
  }

  deleteRaw(id: string, force?: boolean): Promise<GqlResponse> {
    return force === undefined
      ? this.q(`mutation($id: ID!) { record { delete(id: $id) { id deleted } } }`, { id })
      : this.q(`mutation($id: ID!, $force: Boolean) { record { delete(id: $id, force: $force) { id deleted } } }`, { id, force });
  }

  async getRecord(id: string): Promise<any> {
    return (await this.ok(`query($id: ID!) { record { get(id: $id) { ${RECORD_FIELDS} } } }`, { id })).record.get;
  }

  listRaw(modelId: string, args: { limit?: number; offset?: number; sort?: string } = {}): Promise<GqlResponse> {
    return this.q(
      `query($modelId: ID!, $limit: Int, $offset: Int, $sort: String) {
        record { list(modelId: $modelId, limit: $limit, offset: $offset, sort: $sort) { total hasMore items { id data createdAt updatedAt } } }
      }`,
      { modelId, ...args },
    );
  }

  async list(
    modelId: string,
    args: { limit?: number; offset?: number; sort?: string } = {},
  ): Promise<{
    total: number;
    hasMore: boolean;
    items: { id: string; data: any; createdAt: string; updatedAt: string }[];
  }> {
    return dataOf(await this.listRaw(modelId, args)).record.list;
  }

  /** Every record of a model, paging by 100 in createdAt_asc order. */
  async listAll(modelId: string): Promise<{ id: string; data: any }[]> {
    const all: { id: string; data: any }[] = [];
    for (let offset = 0; ; offset += 100) {
      const page = await this.list(modelId, { limit: 100, offset });
      all.push(...page.items);
      if (!page.hasMore) return all;
    }
  }

  async total(modelId: string): Promise<number> {
    return (await this.list(modelId, { limit: 1 })).total;
  }

  async getModel(id: string): Promise<any> {
    return (await this.ok(`query($id: ID!) { model { get(id: $id) { ${MODEL_FIELDS} } } }`, { id })).model.get;
  }
}

/** Bootstraps a workspace with the CLI and returns an admin client for it. */
export async function bootstrapAdmin(
  server: TestServer,
  args: BootstrapArgs = { org: 'acme', workspace: 'main', email: 'owner@acme.test', role: 'owner' },
): Promise<Admin> {
  const result = await server.bootstrap(args);
  return new Admin(server, { token: result.token, workspaceId: result.workspaceId });
}
