import type { Actor } from '../services/actor.js';
import type { MemberService } from '../services/member-service.js';
import type { ModelService } from '../services/model-service.js';
import type { RecordReader } from '../services/record-reader.js';
import type { RecordService } from '../services/record-service.js';
import type { TokenService } from '../services/token-service.js';
import type { WorkspaceService } from '../services/workspace-service.js';
import type { WebhookService } from '../services/webhook-service.js';
import type { HistoryService } from '../services/history-service.js';
import type { PublishingService } from '../services/publishing-service.js';
import type { ScheduleService } from '../services/schedule-service.js';
import type { AssetService } from '../services/asset-service.js';

export interface Services {
  models: ModelService;
  records: RecordService;
  /** Reads for answers: pages and reads by id with `locale` and `populate`, on both routes. */
  reader: RecordReader;
  tokens: TokenService;
  workspaces: WorkspaceService;
  webhooks: WebhookService;
  members: MemberService;
  /** Records' revisions, their diffs, restore, reads as of a time. */
  history: HistoryService;
  /** Publishing and unpublishing drafts models' records, discarding changes. */
  publishing: PublishingService;
  /** Publishes and unpublishes at set times. */
  schedules: ScheduleService;
  /** The media library: uploads, assets, signed URLs. */
  assets: AssetService;
}

export interface AdminContext {
  actor: Actor;
  services: Services;
  /** The origin the request came to (scheme, host and port): absolute links in answers (sign-in links) start with it. */
  origin: string;
}
