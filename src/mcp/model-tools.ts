// The tools of the workspace and its models: get_workspace_info, list_models, get_model, create_model,
// update_model, delete_model.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { CreateModelInput, FieldDefinitionInput, ModelDefinition, UpdateModelInput } from '../client/types.js';
import { clientFor, findModel, withoutUndefined, type McpOptions } from './context.js';
import { answer, ArgumentError, run } from './results.js';
import { fields, idOrSlug, modelSettings, response, text, toolArguments } from './schemas.js';

const WORKSPACE_QUERY = `query { workspace { current { id orgSlug slug role deliveryPath writeBudget writeBudgetIsDefault defaultLocale } } }`;

/** A model in one line per field: what an agent needs to write records, without the timestamps. */
function modelSummary(model: ModelDefinition) {
  return { id: model.id, slug: model.slug, name: model.name, recordCount: model.recordCount };
}

export function registerModelTools(server: McpServer, options: McpOptions): void {
  const log = options.log ?? (() => undefined);

  server.registerTool(
    'get_workspace_info',
    {
      title: 'Workspace info',
      description:
        "The workspace the token works in: id, organisation and workspace slugs, the token's role (viewer: reads only; " +
        'editor: records too; admin and owner: models too), the delivery route path, the write budget (record writes ' +
        'per minute; over it a write waits) and the default locale.',
      inputSchema: toolArguments({}),
      annotations: { readOnlyHint: true },
    },
    (_args, extra) =>
      run(async () => {
        const client = clientFor(options, extra);
        const data = await client.request<{ workspace: { current: unknown } }>(WORKSPACE_QUERY, {}, { operation: 'workspace' });
        return answer(data.workspace.current);
      }, log),
  );

  server.registerTool(
    'list_models',
    {
      title: 'List models',
      description:
        'Every model (content type) of the workspace with its fields (key, type, required, relations, sub-fields), ' +
        'product settings and record count. Read this before writing records: data keys are the field keys.',
      inputSchema: toolArguments({}),
      annotations: { readOnlyHint: true },
    },
    (_args, extra) => run(async () => answer(await clientFor(options, extra).listModels()), log),
  );

  server.registerTool(
    'get_model',
    {
      title: 'Get a model',
      description: 'One model with its fields, by slug or id.',
      inputSchema: toolArguments({ idOrSlug }),
      annotations: { readOnlyHint: true },
    },
    (args, extra) => run(async () => answer(await findModel(clientFor(options, extra), 'idOrSlug', args.idOrSlug)), log),
  );

  server.registerTool(
    'create_model',
    {
      title: 'Create a model',
      description:
        'Creates a model (content type): a name, a unique slug and its fields. Needs an admin or owner token. ' +
        'Answers {created: {id, slug}} (response "full": the whole model).',
      inputSchema: toolArguments({
        name: text('name', 'Display name.', 'name: required (a string)'),
        slug: text(
          'slug',
          'Unique in the workspace: lowercase letters, digits and -, e.g. "blog-post".',
          'slug: required (a string)',
        ),
        fields: fields.describe('The fields of the model (at least one).'),
        ...modelSettings,
        response,
      }),
    },
    (args, extra) =>
      run(async () => {
        const { response: shape, ...input } = args;
        const model = await clientFor(options, extra).createModel(withoutUndefined(input) as unknown as CreateModelInput);
        return answer(shape === 'full' ? model : { created: modelSummary(model) });
      }, log),
  );

  server.registerTool(
    'update_model',
    {
      title: 'Update a model',
      description:
        'Changes the settings given; the others keep their values. fields, when given, is the whole new list: a ' +
        'field left out is removed, a new key is added. A change the stored records would violate (a new required ' +
        'field, a changed type) is refused with the reason. The slug cannot change. Needs an admin or owner token.',
      inputSchema: toolArguments({
        idOrSlug,
        name: z.string().optional().describe('New display name.'),
        fields: fields.optional().describe('The whole new list of fields.'),
        ...modelSettings,
        response,
      }),
    },
    (args, extra) =>
      run(async () => {
        const { response: shape, idOrSlug: which, ...changes } = args;
        const client = clientFor(options, extra);
        const model = await findModel(client, 'idOrSlug', which);
        const input = { id: model.id, ...withoutUndefined(changes) } as UpdateModelInput & { fields?: FieldDefinitionInput[] };
        const updated = await client.updateModel(input);
        if (!updated) throw new ArgumentError(`idOrSlug: no model "${which}" in this workspace`);
        return answer(shape === 'full' ? updated : { updated: modelSummary(updated) });
      }, log),
  );

  server.registerTool(
    'delete_model',
    {
      title: 'Delete a model',
      description:
        'Deletes a model. Refused while it still has records (delete them first) or while another model has a ' +
        'relation to it. Needs an admin or owner token. Answers {id, deleted}.',
      inputSchema: toolArguments({ idOrSlug }),
      annotations: { destructiveHint: true },
    },
    (args, extra) =>
      run(async () => {
        const client = clientFor(options, extra);
        const model = await findModel(client, 'idOrSlug', args.idOrSlug);
        return answer(await client.deleteModel(model.id));
      }, log),
  );
}
