import { randomBytes } from 'node:crypto';
import type { Workspace } from '../../src/domain/workspace.js';
import type { Actor } from '../../src/services/actor.js';
import type { Store } from '../../src/store/store.js';

export interface OwnedWorkspace {
  orgSlug: string;
  workspace: Workspace;
  /** The owner (owner@example.com) as the services take a caller. */
  actor: Actor;
}

/** The workspace `main` of organisation `orgSlug` (a new random one unless given), owned by owner@example.com. */
export async function ownedWorkspace(store: Store, orgSlug = `org-${randomBytes(4).toString('hex')}`): Promise<OwnedWorkspace> {
  const { workspace, membership } = await store.tenancy.ensureMembership({
    orgSlug,
    workspaceSlug: 'main',
    email: 'owner@example.com',
    role: null,
    defaultRole: 'owner',
  });
  return { orgSlug, workspace, actor: { workspaceId: workspace.id, userId: membership.userId, role: 'owner' } };
}
