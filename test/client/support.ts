import { expect } from 'chai';
import { ContentClient, TransportError, type ClientOptions } from '../../src/client/index.js';
import { DATABASE_TARGETS } from '../support/services.js';
import { TEST_ADMIN, type ServerContext } from '../support/server.js';

/** The client suites speak only HTTP: SQLite is enough (the server suites cover the dialects). */
export const SQLITE_ONLY = { targets: DATABASE_TARGETS.filter((target) => target.dialect === 'sqlite') };

/** A client of the test server, logged in as TEST_ADMIN. */
export async function adminClient(ctx: ServerContext, options: ClientOptions = {}): Promise<ContentClient> {
  const client = new ContentClient(ctx.server.url, options);
  await client.auth.login({ email: TEST_ADMIN.email, password: TEST_ADMIN.password });
  return client;
}

/** Awaits `promise`, expecting a TransportError; returns it. */
export async function rejection(promise: Promise<unknown>): Promise<TransportError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(TransportError);
    return error as TransportError;
  }
  expect.fail('expected a TransportError');
}

/** Asserts `error` carries exactly one server error with `code` on an HTTP `status`. */
export function expectServerError(error: TransportError, status: number, code: string): void {
  expect(error.response?.status, error.message).to.equal(status);
  expect(error.errors.map((e) => e.extensions?.code)).to.deep.equal([code]);
  expect(error.message).to.equal(error.errors[0]?.message);
}
