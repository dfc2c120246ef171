// Settings → API tokens' calls to the API: the list, the revocation and the creation of a token.
import { gql } from './api.js';
import type { ApiToken } from './tokens-state.js';

const TOKEN_FIELDS = 'id name userEmail role createdAt expiresAt revokedAt lastUsedAt';

export async function listTokens(): Promise<ApiToken[]> {
  const data = await gql<{ token: { list: ApiToken[] } }>(`query AdminTokens { token { list { ${TOKEN_FIELDS} } } }`);
  return data.token.list;
}

export async function revokeTokenCall(id: string): Promise<void> {
  await gql('mutation RevokeToken($id: ID!) { token { revoke(id: $id) { id deleted } } }', { id });
}

/** Creates a token; answers it and its secret (shown once). */
export async function createTokenCall(name: string, expiresAt: string | null): Promise<{ token: string; apiToken: ApiToken }> {
  // Literals (JSON strings are GraphQL strings), so that the input's type name does not matter here.
  const literal = `{ name: ${JSON.stringify(name)}, expiresAt: ${expiresAt === null ? 'null' : JSON.stringify(expiresAt)} }`;
  const data = await gql<{ token: { create: { token: string; apiToken: ApiToken } } }>(
    `mutation CreateToken { token { create(input: ${literal}) { token apiToken { ${TOKEN_FIELDS} } } } }`,
  );
  return data.token.create;
}
