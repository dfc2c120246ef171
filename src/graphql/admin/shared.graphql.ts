// The types both routes' schemas share: field definitions, records and their lists.
export const SHARED_TYPES_SDL = /* GraphQL */ `
  scalar JSON
  scalar DateTime

  type FieldDefinition {
    key: String!
    label: String!
    type: String!
    required: Boolean!
    relationTo: String
    relationType: String
    fields: [FieldDefinition!]
    "Filters and sorts on the field are served by a database index (the SKU field always is, whatever this says)."
    indexed: Boolean!
    "A media field holds an array of asset ids (else one id)."
    multiple: Boolean!
    "A media field: the kinds of asset it takes (image, video, audio, document); null: all."
    acceptedTypes: [String!]
  }

  type ModelRecord {
    id: ID!
    modelId: ID!
    workspaceId: ID!
    data: JSON!
    createdAt: DateTime!
    updatedAt: DateTime!
    createdBy: String
    updatedBy: String
    "The revision the record is at: 1 when created or imported, one more for each change of its data."
    revision: Int!
    "draft (never published, or unpublished), published (the working copy is the published copy) or changed. A model without drafts: always published."
    status: String!
    "The last publish; null when not published. A model without drafts: its last write (every write is live)."
    publishedAt: DateTime
    "The revision that is live; null when not published."
    publishedRevision: Int
    "status is changed: the working copy differs from the published copy."
    hasUnpublishedChanges: Boolean!
  }

  type ModelRecordList {
    total: Int!
    hasMore: Boolean!
    items: [ModelRecord!]!
  }
`;
