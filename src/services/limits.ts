import { ServiceError } from '../domain/errors.js';

export const MAX_IMPORT_ROWS = 1000;

export function importRowLimitError(count: number): ServiceError {
  return new ServiceError('BAD_USER_INPUT', `rows: at most ${MAX_IMPORT_ROWS} rows per import, got ${count}`, {
    field: 'rows',
  });
}
