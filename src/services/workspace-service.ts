import type { Store } from '../store/store.js';
import type { Actor } from './actor.js';

export interface WorkspaceInfo {
  id: string;
  orgSlug: string;
  slug: string;
  role: string;
  deliveryPath: string;
  writeBudget: number;
  writeBudgetIsDefault: boolean;
}

/** What the admin application shows under Settings → Workspace. */
export class WorkspaceService {
  constructor(
    private readonly store: Store,
    /** The server's write budget per minute, for workspaces without one of their own. */
    private readonly defaultWriteBudget: number,
  ) {}

  async current(actor: Actor): Promise<WorkspaceInfo> {
    const workspace = await this.store.tenancy.findWorkspace(actor.workspaceId);
    if (!workspace) throw new Error(`workspace ${actor.workspaceId} of an authenticated request not found`);
    return {
      id: workspace.id,
      orgSlug: workspace.orgSlug,
      slug: workspace.slug,
      role: actor.role,
      deliveryPath: `/public/${encodeURIComponent(workspace.orgSlug)}/${encodeURIComponent(workspace.slug)}/graphql`,
      writeBudget: workspace.writeBudget ?? this.defaultWriteBudget,
      writeBudgetIsDefault: workspace.writeBudget === null,
    };
  }
}
