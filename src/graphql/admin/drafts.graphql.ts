// The admin schema's types of drafts and publishing (docs/lifecycle.md).
export const DRAFTS_TYPES_SDL = /* GraphQL */ `
  type PublishResult {
    "The records after the change, in the order of the ids (working copies)."
    records: [ModelRecord!]!
    "Ids the published copies' relation fields point at that are not published themselves: publish them too."
    unpublishedTargets: [ID!]!
  }
`;
