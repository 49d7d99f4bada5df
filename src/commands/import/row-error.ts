import { ServiceError, ServiceErrorList } from '../../errors.js';

/** The error of one row, naming it: `Row <n>: ` before the message, `row` in the extensions. */
export function atRow(error: unknown, row: number): unknown {
  if (error instanceof ServiceErrorList) return new ServiceErrorList(error.errors.map((e) => withRow(e, row)));
  if (error instanceof ServiceError) return withRow(error, row);
  return error;
}

/** The same error (class, code, status) with the row added. */
function withRow<E extends ServiceError>(error: E, row: number): E {
  const tagged = Object.create(Object.getPrototypeOf(error) as object) as E;
  Object.assign(tagged, error, { extensions: { ...error.extensions, row } });
  Object.defineProperty(tagged, 'message', {
    value: `Row ${row}: ${error.message}`,
    writable: true,
    configurable: true,
  });
  Object.defineProperty(tagged, 'stack', { value: error.stack, writable: true, configurable: true });
  return tagged;
}
