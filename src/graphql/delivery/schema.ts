import type { GraphQLSchema } from 'graphql';
import { ServiceError } from '../../domain/errors.js';
import type { ModelDefinition } from '../../domain/fields.js';
import type { ListArguments } from '../../domain/listing.js';
import type { Workspace } from '../../domain/workspace.js';
import type { ReadArguments, Reader } from '../../services/record-reader.js';
import { SHARED_TYPES_SDL } from '../admin/schema.graphql.js';
import { buildExecutableSchema, namespace, type TypeResolvers } from '../build-schema.js';
import { sourceOnlyResolver } from '../compiled-execute.js';
import type { Services } from '../context.js';
import { selectsItemData, selectsListCount, selectsRecordData } from '../selection.js';

export interface DeliveryContext {
  workspace: Workspace;
  services: Services;
  /**
   * The request carries an API token of a member of this workspace: it may learn that a model exists but is not
   * public, and how to publish it. Anyone else gets the NOT_FOUND of an unknown model, which tells nothing.
   */
  callerIsMember: boolean;
  /**
   * Set when the answer tells what only a member may know (a model that is not public): it is then for this caller
   * alone, and no cache may keep it or give its tag to anyone else.
   */
  answerIsPersonal?: boolean;
  /** The operation gives some field `preview: true` (and the caller is a member): those fields answer working copies. */
  preview?: boolean;
  /** The origin the request came to: populated assets' URLs start with it (unless a public URL is configured). */
  origin?: string;
}

const DELIVERY_SDL = /* GraphQL */ `
  ${SHARED_TYPES_SDL}

  type Query {
    public: PublicQueries!
  }

  type PublicQueries {
    model: PublicModelQueries!
  }

  "Models whose deliveryAccess is public, and their records. workspaceId, when given, must be this route's workspace."
  type PublicModelQueries {
    definitions(workspaceId: String): [PublicModelDefinition!]!
    records(
      workspaceId: String
      modelSlug: String!
      filter: JSON
      sort: String
      locale: String
      limit: Int
      offset: Int
      populate: [String!]
      "Working copies (drafts and changes included) instead of published copies; needs an API token of the workspace."
      preview: Boolean
    ): ModelRecordList!
    "In the order of ids; null where the model has no such record (at most 100 ids)."
    recordsByIds(
      workspaceId: String
      modelSlug: String!
      ids: [ID!]!
      locale: String
      populate: [String!]
      preview: Boolean
    ): [ModelRecord]!
    record(workspaceId: String, modelSlug: String!, id: ID!, locale: String, populate: [String!], preview: Boolean): ModelRecord
  }

  type PublicModelDefinition {
    id: ID!
    slug: String!
    name: String!
    description: String
    icon: String
    color: String
    displayField: String!
    fields: [FieldDefinition!]!
    recordCount: Int!
  }
`;

interface ModelArguments {
  workspaceId?: string | null;
  modelSlug: string;
}

const isPublic = (model: ModelDefinition) => model.deliveryAccess === 'public';

/** The answer for a model that is not there, not public, or asked for in another workspace: it tells nothing. */
function modelNotFound(): ServiceError {
  return new ServiceError('NOT_FOUND', 'modelSlug: model not found', { field: 'modelSlug' });
}

/** What a member of the workspace is told about a model that exists but is not published (still NOT_FOUND). */
function modelNotPublic(model: ModelDefinition): ServiceError {
  return new ServiceError(
    'NOT_FOUND',
    `modelSlug: the model "${model.slug}" is not public: the delivery route serves a model's records only when its ` +
      `deliveryAccess is "public" (model.update with deliveryAccess: "public", or Delivery access in the model's ` +
      `settings in the admin application). Callers without a token of this workspace are told "model not found".`,
    { field: 'modelSlug' },
  );
}

function requireThisWorkspace(context: DeliveryContext, workspaceId: string | null | undefined): void {
  if (workspaceId !== undefined && workspaceId !== null && workspaceId !== context.workspace.id) throw modelNotFound();
}

async function publicModel(context: DeliveryContext, args: ModelArguments): Promise<ModelDefinition> {
  requireThisWorkspace(context, args.workspaceId);
  const model = await context.services.models.getBySlug(context.workspace.id, args.modelSlug);
  if (!model) throw modelNotFound();
  if (!isPublic(model)) {
    if (!context.callerIsMember) throw modelNotFound();
    context.answerIsPersonal = true;
    throw modelNotPublic(model);
  }
  return model;
}

/** The route's reader: published copies of drafts models' records, or working copies with `preview: true`. */
function publicReader({ workspace, origin }: DeliveryContext, withData: boolean, preview: Preview): Reader {
  const served = preview.preview !== true;
  return { workspaceId: workspace.id, defaultLocale: workspace.defaultLocale, publicOnly: true, withData, served, origin };
}

type Preview = { preview?: boolean | null };
type RecordsArguments = ModelArguments & ListArguments & ReadArguments & Preview;

const publicModelQueries: TypeResolvers<DeliveryContext> = {
  definitions: async (_, { workspaceId }: { workspaceId?: string | null }, context) => {
    requireThisWorkspace(context, workspaceId);
    return (await context.services.models.list(context.workspace.id)).filter(isPublic);
  },
  records: async (_, args: RecordsArguments, context, info) => {
    requireThisWorkspace(context, args.workspaceId);
    const lookup = { key: { slug: args.modelSlug }, visible: isPublic, require: () => publicModel(context, args) };
    return context.services.reader.list(
      { ...publicReader(context, selectsItemData(info), args), counted: selectsListCount(info) },
      lookup,
      args,
    );
  },
  recordsByIds: async (_, { ids, ...args }: ModelArguments & ReadArguments & Preview & { ids: string[] }, context, info) => {
    const model = await publicModel(context, args);
    return context.services.reader.getMany(publicReader(context, selectsRecordData(info), args), ids, args, model);
  },
  record: async (_, { id, ...args }: ModelArguments & ReadArguments & Preview & { id: string }, context, info) => {
    const model = await publicModel(context, args);
    return context.services.reader.get(publicReader(context, selectsRecordData(info), args), id, args, model);
  },
};

/** A drafts model's records the route serves are its published copies. */
const servedRecordCount = sourceOnlyResolver((model: unknown) => {
  const definition = model as ModelDefinition;
  return definition.drafts ? definition.publishedCount : definition.recordCount;
});

/** Who wrote a record is not published; the record itself is passed on as it is, its data still unparsed. */
const unpublished = sourceOnlyResolver(() => null);

export function buildDeliverySchema(): GraphQLSchema {
  return buildExecutableSchema<DeliveryContext>(DELIVERY_SDL, {
    Query: { public: namespace },
    PublicQueries: { model: namespace },
    PublicModelQueries: publicModelQueries,
    ModelRecord: { createdBy: unpublished, updatedBy: unpublished },
    PublicModelDefinition: { recordCount: servedRecordCount },
  });
}
