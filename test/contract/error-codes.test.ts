import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import * as errors from '../../src/errors.js';
import { ERROR_STATUS, ServiceError } from '../../src/errors.js';

// errors.ts and the repository's own error table (docs/errors.md) mirror each other both ways.
const referencePath = new URL('../../docs/errors.md', import.meta.url);

function referenceCodes(): Map<string, number> {
  const table = new Map<string, number>();
  for (const line of readFileSync(referencePath, 'utf8').split('\n')) {
    const match = /^\| ([A-Z_]+) \| (\d{3}) \|/.exec(line);
    if (match?.[1] !== undefined) table.set(match[1], Number(match[2]));
  }
  return table;
}

/** One instance of every ServiceError class exported by errors.ts, built with sample arguments. */
function instances(): ServiceError[] {
  const samples: Record<string, unknown[]> = {
    FailedValidationError: [{ field: 'f', type: 'required' }],
    RecordNotUniqueError: [{ collection: 'c', field: 'f' }],
    ValueTooLongError: [{ collection: 'c', field: 'f' }],
    ValueOutOfRangeError: [{ collection: 'c', field: 'f' }],
    NotNullViolationError: [{ collection: 'c', field: 'f' }],
    InvalidForeignKeyError: [{ collection: 'c', field: 'f' }],
    ContainsNullValuesError: [{ collection: 'c', field: 'f' }],
    GraphqlValidationError: [[]],
    GraphqlExecutionError: [[]],
    MethodNotAllowedError: ['PUT', ['GET', 'POST']],
    UnsupportedMediaTypeError: ['text/plain', 'Content-Type header'],
    RequestsExceededError: [50, new Date(Date.now() + 1000)],
    ServiceUnavailableError: ['s', 'r'],
  };
  return (
    Object.entries(errors)
      // ExtensionError carries an extension's own code and status, outside the table (tested below).
      .filter(([name]) => name !== 'ExtensionError')
      .filter(([, value]) => typeof value === 'function' && value.prototype instanceof ServiceError)
      .map(([name, Class]) => new (Class as new (...args: unknown[]) => ServiceError)(...(samples[name] ?? ['reason'])))
  );
}

describe('error codes contract', () => {
  it('ERROR_STATUS has exactly the codes and statuses of docs/errors.md', () => {
    expect(Object.fromEntries(referenceCodes())).to.deep.equal({ ...ERROR_STATUS });
  });

  it('every code has exactly one error class, and every class a listed code', () => {
    const codes = instances().map((e) => e.code);
    expect([...codes].sort()).to.deep.equal(Object.keys(ERROR_STATUS).sort());
  });

  it("an extension's error keeps its own code and status", () => {
    const error = new errors.ExtensionError('ARTICLE_LOCKED', 423, 'The article is locked.', { article: 7 });
    expect([error.code, error.status, error.message, error.extensions]).to.deep.equal([
      'ARTICLE_LOCKED',
      423,
      'The article is locked.',
      { article: 7 },
    ]);
  });

  it('messages follow the reference wording', () => {
    expect(new errors.ForbiddenError().message).to.equal("You don't have permission to access this.");
    expect(new errors.InvalidQueryError('"limit" must be a number').message).to.equal(
      'Invalid query. "limit" must be a number.',
    );
    expect(new errors.RouteNotFoundError('/x').message).to.equal("Route /x doesn't exist.");
    expect(new errors.FailedValidationError({ field: 'code', type: 'starts_with', substring: 'C' }).message).to.equal(
      'Validation failed for field "code".',
    );
    expect(new errors.MethodNotAllowedError('GET', ['POST']).message).to.equal(
      'Invalid method "GET" used. Should be one of "POST".',
    );
  });
});
