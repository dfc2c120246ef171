// The admin schema's media library (docs/media.md). Uploads are not GraphQL: POST /assets and tus at /assets/tus.
export const ASSET_TYPES_SDL = /* GraphQL */ `
  type AssetQueries {
    "search: in the filename, tags and alt text, case-insensitive. type: image, video, audio, document or other. tags: holding all. sort: createdAt_desc (default), createdAt_asc, filename_asc, filename_desc, size_asc, size_desc."
    list(limit: Int, offset: Int, search: String, type: String, tags: [String!], sort: String): AssetList!
    get(id: ID!): Asset
    "The asset's URL signed to work without a token for expiresIn seconds (1 to 604800): for private assets."
    signedUrl(id: ID!, expiresIn: Int!): String!
  }

  type AssetMutations {
    "Changes any of filename, alt, tags, focalPoint (null clears it) and access."
    update(input: UpdateAssetInput!): Asset!
    "CONFLICT while records' media fields hold it, naming a model and field; force: true removes it from them first."
    delete(id: ID!, force: Boolean): DeletionResult!
  }

  input UpdateAssetInput {
    id: ID!
    filename: String
    "An object of locale code to text, or a text for the workspace's default locale; null clears it."
    alt: JSON
    tags: [String!]
    focalPoint: FocalPointInput
    "public or private"
    access: String
  }

  input FocalPointInput {
    x: Float!
    y: Float!
  }

  "0..1 from the top left: the part of the image a cover crop keeps."
  type FocalPoint {
    x: Float!
    y: Float!
  }

  type Asset {
    id: ID!
    filename: String!
    "Detected from the content, never taken from the client."
    mimeType: String!
    "image, video, audio, document or other"
    type: String!
    size: Int!
    width: Int
    height: Int
    blurhash: String
    sha256: String!
    "Locale code to text."
    alt: JSON
    tags: [String!]!
    focalPoint: FocalPoint
    "public or private"
    access: String!
    "Where it is served; image transforms by query (w, h, fit, format, q)."
    url: String!
    "How many records' media fields hold it."
    usage: Int!
    createdAt: DateTime!
    createdBy: String
  }

  type AssetList {
    total: Int!
    hasMore: Boolean!
    items: [Asset!]!
  }
`;
