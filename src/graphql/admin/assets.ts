// The resolvers of the media library (docs/media.md): each one service call.
import type { StoredAsset } from '../../services/asset-service.js';
import type { TypeResolvers } from '../build-schema.js';
import type { AdminContext } from '../context.js';

type Resolvers = TypeResolvers<AdminContext>;

type ListArgs = {
  limit?: number | null;
  offset?: number | null;
  search?: string | null;
  type?: string | null;
  tags?: string[] | null;
  sort?: string | null;
};

export const assetQueries: Resolvers = {
  list: (_, args: ListArgs, { actor, services }) => services.assets.list(actor.workspaceId, args),
  get: (_, { id }: { id: string }, { actor, services }) => services.assets.get(actor.workspaceId, id),
  signedUrl: (_, { id, expiresIn }: { id: string; expiresIn: number }, { actor, services, origin }) =>
    services.assets.signedUrl(actor.workspaceId, id, expiresIn, origin),
};

export const assetMutations: Resolvers = {
  update: (_, { input }: { input: Record<string, unknown> }, { actor, services }) => services.assets.update(actor, input),
  delete: async (_, { id, force }: { id: string; force?: boolean | null }, { actor, services }) => {
    await services.assets.delete(actor, id, force === true);
    return { id, deleted: true };
  },
};

export const assetFields: Resolvers = {
  url: (asset: StoredAsset, _, { services, origin }) => services.assets.urls.url(asset, origin),
  createdAt: (asset: StoredAsset) => new Date(asset.createdAt).toISOString(),
};
