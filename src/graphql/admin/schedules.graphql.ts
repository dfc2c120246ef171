// The admin schema's types of schedules (docs/lifecycle.md).
export const SCHEDULE_TYPES_SDL = /* GraphQL */ `
  input ScheduleInput {
    ids: [ID!]!
    "publish or unpublish"
    action: String!
    "In the future, at most 5 years ahead."
    at: DateTime!
  }

  type Schedule {
    id: ID!
    action: String!
    at: DateTime!
    ids: [ID!]!
    "pending, done, failed or cancelled"
    status: String!
    "Why a failed schedule changed nothing."
    error: String
    createdAt: DateTime!
    createdBy: String
    doneAt: DateTime
  }

  type ScheduleList {
    total: Int!
    hasMore: Boolean!
    items: [Schedule!]!
  }
`;
