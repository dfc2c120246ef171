// What the admin API says of the caller's workspace (the GraphQL type WorkspaceInfo): the workspace service makes
// it, the admin web application shows it under Settings → Workspace. Compiled for the browser too: nothing here may
// use Node or do I/O.

export interface WorkspaceInfo {
  id: string;
  orgSlug: string;
  slug: string;
  /** The caller's role in the workspace. */
  role: string;
  deliveryPath: string;
  writeBudget: number;
  writeBudgetIsDefault: boolean;
  defaultLocale: string;
}
