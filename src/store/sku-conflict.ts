// The refusal of a duplicate SKU, the same from both stores.
import { ServiceError, SKU_EXISTS } from '../domain/errors.js';
import { skuFieldOf, type ProductSettings } from '../domain/fields.js';

/** The refusal of a SKU that another record of the model holds, naming the model's SKU field. */
export function skuConflict(model: { product: ProductSettings | null }): ServiceError {
  const field = skuFieldOf(model) ?? 'sku';
  return new ServiceError('CONFLICT', `${field}: ${SKU_EXISTS}`, { field });
}
