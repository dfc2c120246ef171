import type { GraphQLSchema } from 'graphql';
import { ServiceError } from '../../domain/errors.js';
import type { ListArguments } from '../../domain/listing.js';
import type { Workspace } from '../../domain/workspace.js';
import { SHARED_TYPES_SDL } from '../admin/schema.graphql.js';
import { buildExecutableSchema, namespace, type TypeResolvers } from '../build-schema.js';
import { sourceOnlyResolver } from '../compiled-execute.js';
import type { Services } from '../context.js';
import { selectsItemData } from '../selection.js';

export interface DeliveryContext {
  workspace: Workspace;
  services: Services;
}

const DELIVERY_SDL = /* GraphQL */ `
  ${SHARED_TYPES_SDL}

  type Query {
    public: PublicQueries!
  }

  type PublicQueries {
    model: PublicModelQueries!
  }

  type PublicModelQueries {
    definitions: [PublicModelDefinition!]!
    records(modelSlug: String!, filter: JSON, sort: String, limit: Int, offset: Int): ModelRecordList!
  }

  type PublicModelDefinition {
    slug: String!
    name: String!
    description: String
    displayField: String!
    fields: [FieldDefinition!]!
  }
`;

async function publicModel(context: DeliveryContext, slug: string) {
  const model = await context.services.models.getBySlug(context.workspace.id, slug);
  if (model?.deliveryAccess !== 'public')
    throw new ServiceError('NOT_FOUND', 'modelSlug: model not found', { field: 'modelSlug' });
  return model;
}

const publicModelQueries: TypeResolvers<DeliveryContext> = {
  definitions: async (_, __, { workspace, services }) =>
    (await services.models.list(workspace.id)).filter((model) => model.deliveryAccess === 'public'),
  records: async (_, args: ListArguments & { modelSlug: string }, context, info) => {
    const model = await publicModel(context, args.modelSlug);
    return context.services.records.listModel(model, args, { withData: selectsItemData(info) });
  },
};

/** Who wrote a record is not published; the record itself is passed on as it is, its data still unparsed. */
const unpublished = sourceOnlyResolver(() => null);

export function buildDeliverySchema(): GraphQLSchema {
  return buildExecutableSchema<DeliveryContext>(DELIVERY_SDL, {
    Query: { public: namespace },
    PublicQueries: { model: namespace },
    PublicModelQueries: publicModelQueries,
    ModelRecord: { createdBy: unpublished, updatedBy: unpublished },
  });
}
