import fc from 'fast-check';
import { describeEachDatabase } from '../../support/server.js';
import { createUser } from '../auth/helpers.js';
import { authRequest, jsonBodyText, utilsRequest } from './arbitraries.js';
import {
  checkProperty,
  createFuzzWorld,
  FUZZ_ENV,
  fuzzIt,
  JSON_HEADERS,
  ROLES,
  send,
  sendWrite,
  type FuzzWorld,
} from './fuzz-world.js';

/*
 * Property: whatever the body, the public auth routes and the utils routes answer below 500
 * with the error body from 400 on, and the server stays up (fuzz-world.ts); sort and revert
 * that are refused change no row.
 */

const role = fc.constantFrom(...ROLES);

describeEachDatabase(
  'fuzz: auth and utils',
  (ctx) => {
    let world: FuzzWorld;
    before(async () => {
      world = await createFuzzWorld(ctx());
      // The e-mail the login generator tries most: a real user, so wrong passwords reach argon2.
      await createUser(ctx().server.db, { email: 'fuzz@example.com', password: 'fuzz-password' });
    });

    fuzzIt('auth routes with any body', () =>
      checkProperty(authRequest, async ({ path, body }) => {
        await send(world, 'public', {
          method: 'POST',
          path,
          headers: JSON_HEADERS,
          body: JSON.stringify(body) ?? 'null',
        });
      }),
    );

    fuzzIt('auth routes with bodies that are not JSON objects', () =>
      checkProperty(
        fc.tuple(
          fc.constantFrom(
            '/auth/login',
            '/auth/refresh',
            '/auth/logout',
            '/auth/password/request',
            '/auth/password/reset',
          ),
          jsonBodyText,
        ),
        async ([path, body]) => {
          await send(world, 'public', { method: 'POST', path, headers: JSON_HEADERS, body });
        },
      ),
    );

    fuzzIt('utils routes with any body', () =>
      checkProperty(fc.tuple(role, utilsRequest), async ([who, { method, path, body }]) => {
        const req =
          body === undefined
            ? { method, path }
            : { method, path, headers: JSON_HEADERS, body: JSON.stringify(body) ?? 'null' };
        await sendWrite(world, who, req);
      }),
    );
  },
  { env: FUZZ_ENV },
);
