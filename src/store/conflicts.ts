// The refusals the stores raise when a unique index or a foreign key says no, the same from both stores.
import { ServiceError, SKU_EXISTS, SLUG_EXISTS } from '../domain/errors.js';
import { skuFieldOf, type ProductSettings } from '../domain/fields.js';

/** The refusal of a SKU that another record of the model holds, naming the model's SKU field. */
export function skuConflict(model: { product: ProductSettings | null }): ServiceError {
  const field = skuFieldOf(model) ?? 'sku';
  return new ServiceError('CONFLICT', `${field}: ${SKU_EXISTS}`, { field });
}

/** The refusal of a model slug another model of the workspace has. */
export function slugConflict(): ServiceError {
  return new ServiceError('CONFLICT', `slug: ${SLUG_EXISTS}`, { field: 'slug' });
}

/** The refusal of a new SKU field under which stored records of the model repeat a value. */
export function skuFieldConflict(skuField: string): ServiceError {
  return new ServiceError('CONFLICT', `product.skuField: stored records repeat values of "${skuField}"; ${SKU_EXISTS}`, {
    field: 'product',
  });
}

/** The refusal of records for a model deleted between the service's checks and the write. */
export function modelGone(): ServiceError {
  return new ServiceError('NOT_FOUND', 'modelId: model not found', { field: 'modelId' });
}

/**
 * A write refused because what its data was checked against changed after the check: the model's definition (a
 * model update committed meanwhile) or a relation target (deleted meanwhile). Nothing was written. The services
 * check again and retry (services/checked-again.ts), so a client sees this only when that keeps happening.
 */
export class ChecksOutdated extends ServiceError {
  constructor(field: 'data' | 'id' = 'data') {
    super('CONFLICT', `${field}: changed by another write while this one was checked; try again`, { field });
  }
}
