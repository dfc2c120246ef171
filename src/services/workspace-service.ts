import { DEFAULT_LOCALE, requireLocale } from '../domain/locale.js';
import type { WorkspaceInfo } from '../shared/workspace-info.js';
import type { Store } from '../store/store.js';
import type { Actor } from './actor.js';

export type { WorkspaceInfo };

export interface UpdateWorkspaceInput {
  /** null: back to the default, en. */
  defaultLocale?: string | null;
}

/** What the admin application shows and changes under Settings → Workspace. */
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
      defaultLocale: workspace.defaultLocale,
    };
  }

  async update(actor: Actor, input: UpdateWorkspaceInput): Promise<WorkspaceInfo> {
    if (input.defaultLocale !== undefined) {
      const locale = input.defaultLocale === null ? DEFAULT_LOCALE : requireLocale('defaultLocale', input.defaultLocale);
      await this.store.tenancy.setDefaultLocale(actor.workspaceId, locale);
    }
    return this.current(actor);
  }
}
