import type { Actor } from '../services/actor.js';
import type { ModelService } from '../services/model-service.js';
import type { RecordService } from '../services/record-service.js';

export interface Services {
  models: ModelService;
  records: RecordService;
}

export interface AdminContext {
  actor: Actor;
  services: Services;
}
