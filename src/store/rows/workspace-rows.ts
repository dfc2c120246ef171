// Workspace rows: a workspace with its organisation, and the workspaces a user is a member of.
import type { Role } from '../../domain/roles.js';
import type { Workspace } from '../../domain/workspace.js';
import type { UserWorkspace } from '../store.js';

export const USER_WORKSPACES_SELECT = `SELECT w.id, o.slug AS org_slug, w.slug, m.role
  FROM memberships m
  JOIN workspaces w ON w.id = m.workspace_id
  JOIN organisations o ON o.id = w.org_id`;

export function toUserWorkspace(row: { id: string; org_slug: string; slug: string; role: Role }): UserWorkspace {
  return { id: row.id, orgSlug: row.org_slug, slug: row.slug, role: row.role };
}

export interface WorkspaceRow {
  id: string;
  slug: string;
  org_id: string;
  org_slug: string;
  write_budget: number | null;
  default_locale: string;
}

export const WORKSPACE_SELECT = `SELECT w.id, w.slug, w.org_id, o.slug AS org_slug, w.write_budget, w.default_locale
  FROM workspaces w JOIN organisations o ON o.id = w.org_id`;

export function toWorkspace(row: WorkspaceRow): Workspace {
  return {
    id: row.id,
    slug: row.slug,
    orgId: row.org_id,
    orgSlug: row.org_slug,
    writeBudget: row.write_budget,
    defaultLocale: row.default_locale,
  };
}
