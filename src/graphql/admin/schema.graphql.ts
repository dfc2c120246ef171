import { HISTORY_TYPES_SDL } from './history.graphql.js';
import { DRAFTS_TYPES_SDL } from './drafts.graphql.js';
import { SCHEDULE_TYPES_SDL } from './schedules.graphql.js';
import { SHARED_TYPES_SDL } from './shared.graphql.js';
import { ASSET_TYPES_SDL } from './assets.graphql.js';

export { SHARED_TYPES_SDL };

export const ADMIN_SDL = /* GraphQL */ `
  ${SHARED_TYPES_SDL}
  ${HISTORY_TYPES_SDL}
  ${DRAFTS_TYPES_SDL}
  ${SCHEDULE_TYPES_SDL}
  ${ASSET_TYPES_SDL}

  type Query {
    model: ModelQueries!
    record: RecordQueries!
    "The calling workspace (beyond the spec)."
    workspace: WorkspaceQueries!
    "API tokens of the calling workspace; owner and admin only (beyond the spec)."
    token: TokenQueries!
    "Webhooks of the calling workspace and their delivery log; owner and admin only."
    webhook: WebhookQueries!
    "Members of the calling workspace; owner and admin only."
    member: MemberQueries!
    "The media library: uploaded images and files (upload with POST /assets or tus at /assets/tus)."
    asset: AssetQueries!
  }

  type Mutation {
    model: ModelMutations!
    record: RecordMutations!
    "Settings of the calling workspace; owner and admin only (beyond the spec)."
    workspace: WorkspaceMutations!
    "Create and revoke API tokens; owner and admin only; not counted against the write budget (beyond the spec)."
    token: TokenMutations!
    "Create, change, rotate, redeliver and ping webhooks; owner and admin only; not counted against the write budget."
    webhook: WebhookMutations!
    "Add members, change their roles, remove them; owner and admin only (only an owner grants, changes or removes owner)."
    member: MemberMutations!
    "Change and delete assets; editor and above; each costs one write."
    asset: AssetMutations!
  }

  type MemberQueries {
    "Every member of the workspace, by email."
    list: [Member!]!
  }

  type MemberMutations {
    """
    Adds the user with that email (created without a password when there is none) with the role (owner, admin,
    editor, viewer). A new user without a password gets a one-time sign-in link in the answer.
    """
    add(email: String!, role: String!): AddedMember!
    "Sets the member's role. The last owner cannot be demoted."
    setRole(userId: ID!, role: String!): Member!
    "Removes the member; their API tokens of this workspace are revoked at once. The last owner cannot be removed."
    remove(userId: ID!): DeletionResult!
  }

  type Member {
    userId: ID!
    email: String!
    "owner, admin, editor or viewer"
    role: String!
    "The user can sign in to the admin application with a password."
    hasPassword: Boolean!
    "When the user became a member; null for members added before this was recorded."
    addedAt: DateTime
  }

  type AddedMember {
    member: Member!
    """
    For a user without a password who is a member of no other workspace: a link (valid once, for 24 hours) where
    they choose a password and are signed in. Shown only in this answer: pass it on. Null otherwise (a user who is a
    member elsewhere gets a password from an operator: content-service user set-password).
    """
    signInLink: String
    signInLinkExpiresAt: DateTime
  }

  type WebhookQueries {
    "Every webhook of the workspace, oldest first."
    list: [Webhook!]!
    get(id: ID!): Webhook
    "The webhook's deliveries, newest first (limit 1-100, default 20; status pending, succeeded or failed)."
    deliveries(webhookId: ID!, limit: Int, offset: Int, status: String): WebhookDeliveryList!
  }

  type WebhookMutations {
    "The secret is in this answer only."
    create(input: CreateWebhookInput!): CreatedWebhook!
    "Changes the settings given; the others keep their values."
    update(input: UpdateWebhookInput!): Webhook
    "Deletes the webhook with its delivery log."
    delete(id: ID!): DeletionResult!
    "A new secret (in this answer only); the previous one keeps signing too for 24 hours."
    rotateSecret(id: ID!): CreatedWebhook!
    "Sends that delivery's event again, as a new attempt series."
    redeliver(deliveryId: ID!): WebhookDelivery!
    "Sends a webhook.ping event to the webhook."
    ping(id: ID!): WebhookDelivery!
  }

  input CreateWebhookInput {
    "https:// or http:// to a public address."
    url: String!
    "Event types (record.created, record.updated, record.deleted, records.imported, model.created, model.updated, model.deleted), or * for all."
    events: [String!]!
    "Only record events of these models (null: every model)."
    modelIds: [ID!]
    description: String
    "Default true; false: no deliveries are made for new events."
    active: Boolean
  }

  input UpdateWebhookInput {
    id: ID!
    url: String
    events: [String!]
    modelIds: [ID!]
    description: String
    active: Boolean
  }

  type Webhook {
    id: ID!
    url: String!
    events: [String!]!
    modelIds: [ID!]
    description: String
    active: Boolean!
    createdAt: DateTime!
    updatedAt: DateTime!
  }

  type CreatedWebhook {
    webhook: Webhook!
    "whsec_ + base64 of 32 random bytes: verify deliveries with it (Standard Webhooks). Shown only in this answer."
    secret: String!
  }

  type WebhookDelivery {
    id: ID!
    "The webhook-id header: the same on every attempt and redelivery."
    eventId: ID!
    eventType: String!
    "pending, succeeded or failed"
    status: String!
    attempts: Int!
    lastStatusCode: Int
    lastError: String
    "How long the last attempt took, in milliseconds (null before the first)."
    duration: Int
    nextAttemptAt: DateTime
    createdAt: DateTime!
    updatedAt: DateTime!
  }

  type WebhookDeliveryList {
    total: Int!
    hasMore: Boolean!
    items: [WebhookDelivery!]!
  }

  type WorkspaceQueries {
    current: WorkspaceInfo!
  }

  type WorkspaceMutations {
    "Changes the settings given; the others keep their values."
    update(input: UpdateWorkspaceInput!): WorkspaceInfo!
  }

  input UpdateWorkspaceInput {
    "A locale code such as en, de or pt-BR."
    defaultLocale: String
  }

  type WorkspaceInfo {
    id: ID!
    orgSlug: String!
    slug: String!
    "The caller's role in this workspace."
    role: String!
    "Path of the delivery route of this workspace: /public/<org>/<workspace>/graphql"
    deliveryPath: String!
    "Record writes per minute from API tokens: the workspace's own budget, else the server's default."
    writeBudget: Int!
    writeBudgetIsDefault: Boolean!
    "The locale a read with locale falls back to when a value has neither that locale nor its language (en unless changed)."
    defaultLocale: String!
  }

  type TokenQueries {
    "Every token of the workspace (all users', revoked and expired ones too), newest first; never the token itself."
    list: [ApiToken!]!
  }

  type TokenMutations {
    "A new token acting as the calling user in this workspace, with the user's role. The token is in the answer only."
    create(input: CreateApiTokenInput!): CreatedApiToken!
    "The token stops working at once. Revoking a revoked token changes nothing."
    revoke(id: ID!): DeletionResult!
  }

  input CreateApiTokenInput {
    name: String!
    expiresAt: DateTime
  }

  type ApiToken {
    id: ID!
    name: String
    userEmail: String!
    "The role of the token's user in this workspace (what the token may do)."
    role: String!
    createdAt: DateTime!
    expiresAt: DateTime
    revokedAt: DateTime
    "When a request last authenticated with the token (recorded at most once a minute); null: never used."
    lastUsedAt: DateTime
  }

  type CreatedApiToken {
    "The token (cs_…). Shown only in this answer: it is stored as a hash."
    token: String!
    apiToken: ApiToken!
  }

  type ModelQueries {
    list: [ModelDefinition!]!
    get(id: ID!): ModelDefinition
  }

  type ModelMutations {
    "dryRun: check the definition as create would, store nothing, and return the model it would make (its id is not kept)."
    create(input: CreateModelDefinitionInput!, dryRun: Boolean): ModelDefinition!
    "dryRun: check the change as update would (stored records included), store nothing, and return the model as it would be."
    update(input: UpdateModelDefinitionInput!, dryRun: Boolean): ModelDefinition
    delete(id: ID!): DeletionResult!
  }

  type RecordQueries {
    "status: only records in these states (draft, published, changed)."
    list(
      modelId: ID!
      limit: Int
      offset: Int
      sort: String
      filter: JSON
      locale: String
      populate: [String!]
      status: [String!]
    ): ModelRecordList!
    "asOf: the record as it was then (the revision current at that time; null when it did not exist). published: its published copy (null when none)."
    get(id: ID!, locale: String, populate: [String!], asOf: DateTime, published: Boolean): ModelRecord
    "The record's revisions, newest first (deleted records' too, for 30 days)."
    history(id: ID!, limit: Int, offset: Int): RevisionList!
    "The RFC 6902 JSON Patch that turns revision from's data into revision to's (default: the newest)."
    diff(id: ID!, from: Int!, to: Int): [JSONPatchOperation!]!
    "Records of any model of the workspace, in the order of ids; null where there is none (at most 100 ids)."
    getMany(ids: [ID!]!, locale: String, populate: [String!]): [ModelRecord]!
    "The workspace's schedules by time; status pending, done, failed or cancelled."
    schedules(status: String, limit: Int, offset: Int): ScheduleList!
  }

  type RecordMutations {
    create(input: CreateModelRecordInput!): ModelRecord!
    import(input: ImportModelRecordsInput!): ImportModelRecordsResult!
    patch(input: PatchModelRecordInput!): ModelRecord
    update(input: UpdateModelRecordInput!): ModelRecord
    delete(id: ID!, force: Boolean): DeletionResult!
    "Writes that revision's data as a new revision, checked against the model as it is now; brings a deleted record back with its id."
    restore(id: ID!, revision: Int!): ModelRecord!
    "Publishes the working copies as they are (at most 1000 ids, all or nothing; each costs one write)."
    publish(ids: [ID!]!): PublishResult!
    "Removes the published copies (at most 1000 ids, all or nothing; each costs one write)."
    unpublish(ids: [ID!]!): PublishResult!
    "The working copy becomes the published copy again, as a new revision; CONFLICT when the record was never published."
    discardChanges(id: ID!): ModelRecord!
    "Publishes or unpublishes the records together at a time, all or nothing (a running server carries it out)."
    schedule(input: ScheduleInput!): Schedule!
    "Only while pending."
    cancelSchedule(id: ID!): Schedule!
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
    icon: String
    color: String
    displayField: String!
    fields: [FieldDefinition!]!
    product: ProductSettings
    deliveryAccess: String!
    "Records have a working copy and a published copy, which the delivery route serves."
    drafts: Boolean!
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
    "Build a database index for filters and sorts on the field: text, number, boolean, date and relation fields."
    indexed: Boolean
    "Media fields: multiple (an array of asset ids; default one id), acceptedTypes (image, video, audio, document; empty: all)."
    multiple: Boolean
    acceptedTypes: [String!]
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
    "An icon name or an emoji, at most 64 characters."
    icon: String
    "A CSS hex colour: #rgb, #rgba, #rrggbb or #rrggbbaa."
    color: String
    fields: [FieldDefinitionInput!]!
    product: ProductSettingsInput
    deliveryAccess: String
    drafts: Boolean
  }

  input UpdateModelDefinitionInput {
    id: ID!
    name: String
    displayField: String
    description: String
    icon: String
    color: String
    fields: [FieldDefinitionInput!]
    product: ProductSettingsInput
    deliveryAccess: String
    "Turning drafts on publishes every record as it is; off is refused while any record is not published as it is."
    drafts: Boolean
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
