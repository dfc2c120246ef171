import { systemClock, type Clock } from '../clock.js';
import { parseDateTime } from '../domain/date-time.js';
import { ServiceError } from '../domain/errors.js';
import type { ApiTokenInfo } from '../domain/workspace.js';
import type { Store } from '../store/store.js';
import type { Actor } from './actor.js';
import { issueToken } from './issue-token.js';

export interface CreateApiTokenInput {
  name: string;
  expiresAt?: string | null;
}

export const MAX_TOKEN_NAME_LENGTH = 200;

function badInput(field: string, reason: string): ServiceError {
  return new ServiceError('BAD_USER_INPUT', `${field}: ${reason}`, { field });
}

/** API tokens of a workspace, managed through the admin API by its owners and admins. */
export class TokenService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock = systemClock,
  ) {}

  list(workspaceId: string): Promise<ApiTokenInfo[]> {
    return this.store.tenancy.listTokens(workspaceId);
  }

  /** A new token acting as the calling user in the calling workspace; the token itself is in the answer only. */
  async create(actor: Actor, input: CreateApiTokenInput, now = this.clock()): Promise<{ token: string; apiToken: ApiTokenInfo }> {
    const name = typeof input.name === 'string' ? input.name.trim() : '';
    if (name === '') throw badInput('name', 'must not be empty');
    if (name.length > MAX_TOKEN_NAME_LENGTH) throw badInput('name', `must be at most ${MAX_TOKEN_NAME_LENGTH} characters`);
    let expiresAt: string | null = null;
    if (input.expiresAt !== undefined && input.expiresAt !== null) {
      const time = parseDateTime(input.expiresAt);
      if (!Number.isFinite(time)) throw badInput('expiresAt', 'must be an ISO 8601 date-time, e.g. 2030-01-31T00:00:00Z');
      if (time <= now) throw badInput('expiresAt', 'must be in the future');
      expiresAt = new Date(time).toISOString();
    }
    const issued = await issueToken(this.store, actor.workspaceId, actor.userId, { name, expiresAt });
    const apiToken = await this.store.tenancy.findWorkspaceToken(actor.workspaceId, issued.id);
    if (!apiToken) throw new Error(`token ${issued.id} not found right after it was created`);
    return { token: issued.token, apiToken };
  }

  /** Revokes a token of the workspace (again: no change); NOT_FOUND for an id that is not a token of this workspace. */
  async revoke(actor: Actor, id: string): Promise<{ id: string; deleted: boolean }> {
    if (!(await this.store.tenancy.revokeWorkspaceToken(actor.workspaceId, id))) {
      throw new ServiceError('NOT_FOUND', 'id: token not found', { field: 'id' });
    }
    return { id, deleted: true };
  }
}
