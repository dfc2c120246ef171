import { randomBytes } from 'node:crypto';
import type { ModelDefinition } from '../../src/domain/fields.js';
import type { Workspace } from '../../src/domain/workspace.js';
import { newId } from '../../src/ids.js';
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

/** A model `note` with one optional text field `title`, not public, made directly in the store. */
export function createNoteModel(store: Store, workspaceId: string): Promise<ModelDefinition> {
  return store.models.create(workspaceId, newId(), {
    name: 'note',
    slug: 'note',
    description: null,
    icon: null,
    color: null,
    displayField: 'title',
    fields: [{ key: 'title', label: 'title', type: 'text', required: false }],
    product: null,
    deliveryAccess: 'none',
  });
}

/** An active webhook for every event with a placeholder secret, made directly in the store (the URL is not checked). */
export async function createStoreWebhook(
  store: Store,
  id: string,
  workspaceId: string,
  url: string,
  createdAt: number = Date.now(),
): Promise<void> {
  await store.webhooks.create({
    id,
    workspaceId,
    url,
    events: ['*'],
    modelIds: null,
    description: null,
    active: true,
    secret: 'whsec_AAAA',
    createdAt,
  });
}
