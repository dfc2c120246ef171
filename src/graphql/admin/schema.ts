import { ServiceError } from '../../domain/errors.js';
import type { GraphQLSchema } from 'graphql';
import type { ListArguments } from '../../domain/listing.js';
import type { ReadArguments, Reader } from '../../services/record-reader.js';
import type { UpdateWorkspaceInput } from '../../services/workspace-service.js';
import type { ModelDefinitionInput } from '../../domain/model-definition.js';
import type { UpdateModelInput } from '../../services/model-service.js';
import type { CreateApiTokenInput } from '../../services/token-service.js';
import type { CreateWebhookInput, DeliveryListArguments, UpdateWebhookInput } from '../../services/webhook-service.js';
import type { ApiTokenInfo } from '../../domain/workspace.js';
import type { StoredSchedule } from '../../services/schedule-service.js';
import { buildExecutableSchema, namespace, type TypeResolvers } from '../build-schema.js';
import type { AdminContext } from '../context.js';
import { selectsItemData, selectsListCount, selectsRecordData } from '../selection.js';
import { ADMIN_SDL } from './schema.graphql.js';
import { assetFields, assetMutations, assetQueries } from './assets.js';

type Input<T> = { input: T };
type DryRun = { dryRun?: boolean | null };
type Resolvers = TypeResolvers<AdminContext>;

const modelQueries: Resolvers = {
  list: (_, __, { actor, services }) => services.models.list(actor.workspaceId),
  get: (_, { id }: { id: string }, { actor, services }) => services.models.get(actor.workspaceId, id),
};

const modelMutations: Resolvers = {
  create: (_, { input, dryRun }: Input<ModelDefinitionInput> & DryRun, { actor, services }) =>
    services.models.create(actor, input, { dryRun: dryRun === true }),
  update: (_, { input, dryRun }: Input<UpdateModelInput> & DryRun, { actor, services }) =>
    services.models.update(actor, input, { dryRun: dryRun === true }),
  delete: (_, { id }: { id: string }, { actor, services }) => services.models.delete(actor, id),
};

/** The admin route reads every model of the workspace. */
function adminReader({ actor, origin }: AdminContext, withData: boolean): Reader {
  return { workspaceId: actor.workspaceId, publicOnly: false, withData, origin };
}

const recordQueries: Resolvers = {
  list: async (_, args: ListArguments & ReadArguments & { modelId: string }, context, info) => {
    const { workspaceId } = context.actor;
    const require = () => context.services.records.requireModel(workspaceId, args.modelId);
    const lookup = { key: { id: args.modelId }, visible: () => true, require };
    return context.services.reader.list(
      { ...adminReader(context, selectsItemData(info)), counted: selectsListCount(info) },
      lookup,
      args,
    );
  },
  get: (
    _,
    { id, asOf, published, ...args }: ReadArguments & { id: string; asOf?: string | null; published?: boolean | null },
    context,
    info,
  ) => {
    if (published === true) return readPublished(context, id, asOf, args);
    if (asOf === undefined || asOf === null)
      return context.services.reader.get(adminReader(context, selectsRecordData(info)), id, args);
    if (args.locale || args.populate?.length) {
      throw new ServiceError('BAD_USER_INPUT', 'asOf: not with locale or populate; read the record as it was with asOf alone', {
        field: 'asOf',
      });
    }
    return context.services.history.asOf(context.actor.workspaceId, id, asOf);
  },
  history: (_, { id, ...window }: { id: string; limit?: number | null; offset?: number | null }, { actor, services }) =>
    services.history.history(actor.workspaceId, id, window),
  diff: (_, { id, from, to }: { id: string; from: number; to?: number | null }, { actor, services }) =>
    services.history.diff(actor.workspaceId, id, from, to),
  schedules: (_, args: { status?: string | null; limit?: number | null; offset?: number | null }, { actor, services }) =>
    services.schedules.list(actor.workspaceId, args),
  getMany: (_, { ids, ...args }: ReadArguments & { ids: string[] }, context, info) =>
    context.services.reader.getMany(adminReader(context, selectsRecordData(info)), ids, args),
};

const recordMutations: Resolvers = {
  create: (_, { input }: Input<{ modelId: string; data: unknown }>, { actor, services }) =>
    services.records.create(actor, input.modelId, input.data),
  import: (_, { input }: Input<{ modelId: string; rows: unknown[] }>, { actor, services }) =>
    services.records.import(actor, input.modelId, input.rows),
  patch: (_, { input }: Input<{ id: string; data: unknown }>, { actor, services }) =>
    services.records.patch(actor, input.id, input.data),
  update: (_, { input }: Input<{ id: string; data: unknown }>, { actor, services }) =>
    services.records.update(actor, input.id, input.data),
  delete: (_, { id, force }: { id: string; force?: boolean | null }, { actor, services }) =>
    services.records.delete(actor, id, force === true),
  restore: (_, { id, revision }: { id: string; revision: number }, { actor, services }) =>
    services.history.restore(actor, id, revision),
  publish: (_, { ids }: { ids: string[] }, { actor, services }) => services.publishing.publish(actor, ids),
  unpublish: (_, { ids }: { ids: string[] }, { actor, services }) => services.publishing.unpublish(actor, ids),
  discardChanges: (_, { id }: { id: string }, { actor, services }) => services.publishing.discardChanges(actor, id),
  schedule: (_, { input }: Input<{ ids: string[]; action: string; at: string }>, { actor, services }) =>
    services.schedules.schedule(actor, input),
  cancelSchedule: (_, { id }: { id: string }, { actor, services }) => services.schedules.cancel(actor, id),
};

/** `record.get(published: true)`: the published copy alone (not with asOf, locale or populate). */
function readPublished(context: AdminContext, id: string, asOf: string | null | undefined, args: ReadArguments) {
  if ((asOf !== undefined && asOf !== null) || args.locale || args.populate?.length) {
    throw new ServiceError('BAD_USER_INPUT', 'published: not with asOf, locale or populate; read the published copy alone', {
      field: 'published',
    });
  }
  return context.services.publishing.publishedCopy(context.actor.workspaceId, id);
}

const workspaceQueries: Resolvers = {
  current: (_, __, { actor, services }) => services.workspaces.current(actor),
};

const workspaceMutations: Resolvers = {
  update: (_, { input }: Input<UpdateWorkspaceInput>, { actor, services }) => services.workspaces.update(actor, input),
};

const tokenQueries: Resolvers = {
  list: (_, __, { actor, services }) => services.tokens.list(actor.workspaceId),
};

const tokenMutations: Resolvers = {
  create: (_, { input }: Input<CreateApiTokenInput>, { actor, services }) => services.tokens.create(actor, input),
  revoke: (_, { id }: { id: string }, { actor, services }) => services.tokens.revoke(actor, id),
};

const webhookQueries: Resolvers = {
  list: (_, __, { actor, services }) => services.webhooks.list(actor.workspaceId),
  get: (_, { id }: { id: string }, { actor, services }) => services.webhooks.get(actor.workspaceId, id),
  deliveries: (_, args: DeliveryListArguments, { actor, services }) => services.webhooks.deliveries(actor.workspaceId, args),
};

const webhookMutations: Resolvers = {
  create: (_, { input }: Input<CreateWebhookInput>, { actor, services }) => services.webhooks.create(actor, input),
  update: (_, { input }: Input<UpdateWebhookInput>, { actor, services }) => services.webhooks.update(actor, input),
  delete: (_, { id }: { id: string }, { actor, services }) => services.webhooks.delete(actor, id),
  rotateSecret: (_, { id }: { id: string }, { actor, services }) => services.webhooks.rotateSecret(actor, id),
  redeliver: (_, { deliveryId }: { deliveryId: string }, { actor, services }) => services.webhooks.redeliver(actor, deliveryId),
  ping: (_, { id }: { id: string }, { actor, services }) => services.webhooks.ping(actor, id),
};

const memberQueries: Resolvers = {
  list: (_, __, { actor, services }) => services.members.list(actor.workspaceId),
};

const memberMutations: Resolvers = {
  add: (_, args: { email: string; role: string }, { actor, services, origin }) => services.members.add(actor, args, origin),
  setRole: (_, args: { userId: string; role: string }, { actor, services }) => services.members.setRole(actor, args),
  remove: (_, { userId }: { userId: string }, { actor, services }) => services.members.remove(actor, userId),
};

const apiToken: Resolvers = {
  // A user who is no longer a member: the token is refused whatever its role was.
  role: (token: ApiTokenInfo) => token.role ?? 'none',
};

export function buildAdminSchema(): GraphQLSchema {
  return buildExecutableSchema<AdminContext>(ADMIN_SDL, {
    Query: {
      model: namespace,
      record: namespace,
      workspace: namespace,
      token: namespace,
      webhook: namespace,
      member: namespace,
      asset: namespace,
    },
    Mutation: {
      asset: namespace,
      model: namespace,
      record: namespace,
      token: namespace,
      workspace: namespace,
      webhook: namespace,
      member: namespace,
    },
    MemberQueries: memberQueries,
    MemberMutations: memberMutations,
    WebhookQueries: webhookQueries,
    WebhookMutations: webhookMutations,
    WorkspaceQueries: workspaceQueries,
    WorkspaceMutations: workspaceMutations,
    TokenQueries: tokenQueries,
    TokenMutations: tokenMutations,
    ApiToken: apiToken,
    ModelQueries: modelQueries,
    ModelMutations: modelMutations,
    RecordQueries: recordQueries,
    RecordMutations: recordMutations,
    Schedule: scheduleTimes,
    AssetQueries: assetQueries,
    AssetMutations: assetMutations,
    Asset: assetFields,
  });
}

const isoTime = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A schedule's times are epoch milliseconds in the store. */
const scheduleTimes: Resolvers = {
  at: (schedule: StoredSchedule) => isoTime(schedule.at),
  createdAt: (schedule: StoredSchedule) => isoTime(schedule.createdAt),
  doneAt: (schedule: StoredSchedule) => isoTime(schedule.doneAt),
};
