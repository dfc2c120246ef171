// content-service/client: the SDK of the Content Service admin API.
export { ContentClient, type ContentClientOptions } from './client.js';
export {
  ModelRecords,
  type Localized,
  type ModelRecordsClient,
  type ReadData,
  type RecordPatch,
  type UntypedModels,
  type WithPopulatedMedia,
} from './model-records.js';
export { renderModelTypes, type TypedModel } from './render-types.js';
export type { ImportOptions, LoadProgress, LoadSummary, SyncOptions } from './load-types.js';
export { ContentServiceError } from './errors.js';
export { mergeDiff, stripNulls } from './diff.js';
export { deepEqual } from '../shared/json.js';
export { MAX_IMPORT_ROWS } from './import.js';
export { graphqlUrl, serviceUrl, type TransportOptions } from './http.js';
export type { AssetSource, ListAssetsOptions, UpdateAssetInput, UploadAssetOptions, UploadProgress } from './assets.js';
export { csvColumns, csvRowToData, CellError, type CsvColumn } from './cells.js';
export type * from './types.js';
export type * from './history-types.js';
export type {
  ListSchedulesOptions,
  Schedule,
  ScheduleAction,
  ScheduleList,
  ScheduleRecordsInput,
  ScheduleStatus,
} from './schedules.js';
export { MAX_IDS_PER_CALL, MAX_PUBLISH_IDS } from './client.js';
export {
  createDeliveryClient,
  DeliveryClient,
  MAX_GET_URL_LENGTH,
  MAX_IDS_PER_DELIVERY_CALL,
  PUBLIC_MODEL_DEFINITIONS,
  PUBLIC_MODEL_RECORDS,
  type DeliveryAllOptions,
  type DeliveryClientOptions,
  type DeliveryListOptions,
  type DeliveryReadOptions,
  type DeliveryRecord,
  type DeliveryRecordList,
  type DeliveryRequestOptions,
  type PublicModelDefinition,
} from './delivery.js';
