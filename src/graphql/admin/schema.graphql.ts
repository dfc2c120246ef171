const sharedTypes = /* GraphQL */ `
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
  }

  type ModelRecordList {
    total: Int!
    hasMore: Boolean!
    items: [ModelRecord!]!
  }
`;

export const SHARED_TYPES_SDL = sharedTypes;

export const ADMIN_SDL = /* GraphQL */ `
  ${sharedTypes}

  type Query {
    model: ModelQueries!
    record: RecordQueries!
  }

  type Mutation {
    model: ModelMutations!
    record: RecordMutations!
  }

  type ModelQueries {
    list: [ModelDefinition!]!
    get(id: ID!): ModelDefinition
  }

  type ModelMutations {
    create(input: CreateModelDefinitionInput!): ModelDefinition!
    update(input: UpdateModelDefinitionInput!): ModelDefinition
    delete(id: ID!): DeletionResult!
  }

  type RecordQueries {
    list(modelId: ID!, limit: Int, offset: Int, sort: String): ModelRecordList!
    get(id: ID!): ModelRecord
  }

  type RecordMutations {
    create(input: CreateModelRecordInput!): ModelRecord!
    import(input: ImportModelRecordsInput!): ImportModelRecordsResult!
    patch(input: PatchModelRecordInput!): ModelRecord
    update(input: UpdateModelRecordInput!): ModelRecord
    delete(id: ID!, force: Boolean): DeletionResult!
  }

  type ProductSettings {
    enabled: Boolean!
    skuField: String
    priceField: String
  }

  type ModelDefinition {
    id: ID!
    workspaceId: ID!
    name: String!
    slug: String!
    description: String
    displayField: String!
    fields: [FieldDefinition!]!
    product: ProductSettings
    deliveryAccess: String!
    recordCount: Int!
    createdAt: DateTime!
    updatedAt: DateTime!
  }

  input FieldDefinitionInput {
    key: String!
    label: String
    type: String!
    required: Boolean
    relationTo: String
    relationType: String
    fields: [FieldDefinitionInput!]
  }

  input ProductSettingsInput {
    enabled: Boolean!
    skuField: String
    priceField: String
  }

  input CreateModelDefinitionInput {
    name: String!
    slug: String!
    displayField: String
    description: String
    fields: [FieldDefinitionInput!]!
    product: ProductSettingsInput
    deliveryAccess: String
  }

  input UpdateModelDefinitionInput {
    id: ID!
    name: String
    displayField: String
    description: String
    fields: [FieldDefinitionInput!]
    product: ProductSettingsInput
    deliveryAccess: String
  }

  input CreateModelRecordInput {
    modelId: ID!
    data: JSON!
  }

  input ImportModelRecordsInput {
    modelId: ID!
    rows: [JSON!]!
  }

  input PatchModelRecordInput {
    id: ID!
    data: JSON!
  }

  input UpdateModelRecordInput {
    id: ID!
    data: JSON!
  }

  type ImportModelRecordsResult {
    importedCount: Int!
    errors: [ImportError!]!
  }

  type ImportError {
    row: Int!
    message: String!
  }

  type DeletionResult {
    id: ID!
    deleted: Boolean!
  }
`;
