// The admin schema's types of record history (docs/lifecycle.md): RecordQueries.history and .diff answer them.
export const HISTORY_TYPES_SDL = /* GraphQL */ `
  type RevisionList {
    total: Int!
    hasMore: Boolean!
    items: [Revision!]!
  }

  type Revision {
    revision: Int!
    "create, import, patch, update, restore, discard or delete"
    operation: String!
    data: JSON!
    createdAt: DateTime!
    "The email of the user whose token or session made it."
    createdBy: String
  }

  type JSONPatchOperation {
    "add, remove or replace"
    op: String!
    "An RFC 6901 pointer"
    path: String!
    value: JSON
    "The replaced or removed value"
    oldValue: JSON
  }
`;
