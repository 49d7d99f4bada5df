import { expect } from 'chai';
import { KnexTimeoutError } from 'knex';
import { createLogger } from '../../../src/logger/index.js';
import { errorAnswer } from '../../../src/http/error-handler.js';
import { translateConnectionError } from '../../../src/db/translate-error.js';
import { HookError } from '../../../src/items/hooks.js';

/** Driver errors as pg, mysql2 and knex throw them when the database is gone (fields that matter). */
const UNREACHABLE: Record<string, object> = {
  'pg: refused': Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
  'pg: admin shutdown (57P01)': Object.assign(new Error('terminating connection due to administrator command'), {
    code: '57P01',
    severity: 'FATAL',
  }),
  'pg: starting up (57P03)': Object.assign(new Error('the database system is starting up'), {
    code: '57P03',
    severity: 'FATAL',
  }),
  'pg: connection exception class 08': Object.assign(new Error('connection failure'), {
    code: '08006',
    severity: 'FATAL',
  }),
  'pg: socket closed mid-query': new Error(
    'insert into "notes" ("title") values ($1) - Connection terminated unexpectedly',
  ),
  'mysql2: connection lost': Object.assign(new Error('Connection lost: The server closed the connection.'), {
    code: 'PROTOCOL_CONNECTION_LOST',
  }),
  'mariadb: server gone away (2006)': Object.assign(new Error('MySQL server has gone away'), { errno: 2006 }),
  'knex: pool timeout': new KnexTimeoutError('Knex: Timeout acquiring a connection. The pool is probably full.'),
  // A pooled client whose socket ended cleanly while it sat idle, then handed a query.
  'pg: client closed while idle': new Error('Client was closed and is not queryable'),
  // pg-pool's connect timeout wraps the socket's error.
  'pg-pool: connect timeout': new Error('connection attempt failed', {
    cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
  }),
  // objection (db/models) hands on pg's error wrapped, its code only on `nativeError`.
  'pg: admin shutdown (57P01) through an objection model': Object.assign(
    new Error('terminating connection due to administrator command'),
    {
      name: 'DBError',
      nativeError: Object.assign(new Error('terminating connection due to administrator command'), {
        code: '57P01',
        severity: 'FATAL',
      }),
    },
  ),
  // A hook's own read met the database down (the flows' filter reading their list).
  'pg: refused, in a filter hook': new HookError(
    'flows',
    'items.create',
    Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
  ),
};

const NOT_CONNECTION: Record<string, object> = {
  'pg: unique violation': Object.assign(new Error('duplicate key value'), { code: '23505', severity: 'ERROR' }),
  'pg: wrong password': Object.assign(new Error('password authentication failed for user "x"'), {
    code: '28P01',
    severity: 'FATAL',
  }),
  'mysql: duplicate entry': Object.assign(new Error("Duplicate entry 'a' for key 'slug'"), {
    errno: 1062,
    code: 'ER_DUP_ENTRY',
  }),
  'a bug': new TypeError("Cannot read properties of undefined (reading 'id')"),
  'a bug wrapping a bug': new Error('rendering failed', { cause: new TypeError('x is not a function') }),
};

describe('translateConnectionError: an unreachable database is 503 SERVICE_UNAVAILABLE', () => {
  const logger = createLogger({ logLevel: 'silent', logStyle: 'raw' });
  /** An unreachable database says nothing about the schema: nothing to drop. */
  const NO_SCHEMA = { invalidate: () => Promise.reject(new Error('not a schema change')) };

  for (const [name, error] of Object.entries(UNREACHABLE)) {
    it(`${name} → 503 in the error body, without the driver's message`, () => {
      expect(translateConnectionError(error)?.code).to.equal('SERVICE_UNAVAILABLE');
      const answer = errorAnswer(error, { logger, dialect: 'pg', schema: NO_SCHEMA });
      expect(answer.status).to.equal(503);
      expect(answer.body).to.deep.equal({
        errors: [
          {
            message: 'Service "database" is unavailable. The database is not reachable, retry later.',
            extensions: {
              service: 'database',
              reason: 'The database is not reachable, retry later',
              code: 'SERVICE_UNAVAILABLE',
            },
          },
        ],
      });
    });
  }

  it("a request body the client stopped sending (body-parser's ECONNABORTED) is 400, not the database's 503", () => {
    const aborted = Object.assign(new Error('request aborted'), { type: 'request.aborted', code: 'ECONNABORTED' });
    const answer = errorAnswer(aborted, { logger, dialect: 'pg', schema: NO_SCHEMA });
    expect([answer.status, answer.body.errors[0]?.extensions.code]).to.deep.equal([400, 'INVALID_PAYLOAD']);
  });

  for (const [name, error] of Object.entries(NOT_CONNECTION)) {
    it(`${name} is not a connection error`, () => {
      expect(translateConnectionError(error)).to.equal(undefined);
    });
  }
});
