import { expect } from 'chai';
import fc from 'fast-check';
import { describeEachDatabase } from '../../support/server.js';
import { storedNames } from '../files/helpers.js';
import {
  assetParams,
  itemKey,
  multipartBody,
  jsonBodyText,
  queryParams,
  rangeHeader,
  rawQueryNoise,
  toQueryString,
} from './arbitraries.js';
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
 * Property: whatever the query string or body, REST answers below 500 with the error body
 * from 400 on, the server stays up, and a refused write changes no row (fuzz-world.ts).
 */

const role = fc.constantFrom(...ROLES);
const collection = fc.constantFrom('articles', 'comments', 'articles', 'svc_activity', 'nope', 'directus_users');
const queryString = fc
  .tuple(queryParams, fc.boolean(), fc.boolean(), rawQueryNoise)
  .map(([params, json, arrays, noise]) =>
    [toQueryString(params, { json, arrays }), noise].filter((s) => s !== '').join('&'),
  );

describeEachDatabase(
  'fuzz: REST',
  (ctx) => {
    let world: FuzzWorld;
    before(async () => {
      world = await createFuzzWorld(ctx());
    });

    fuzzIt('GET of a collection with any query string', () =>
      checkProperty(fc.tuple(role, collection, queryString), async ([who, name, search]) => {
        await send(world, who, { method: 'GET', path: `/items/${name}?${search}` });
      }),
    );

    fuzzIt("GET of the system collections' routes with any query string", () =>
      checkProperty(
        fc.tuple(
          role,
          fc.constantFrom(
            '/users',
            '/roles',
            '/permissions',
            '/activity',
            '/revisions',
            '/versions',
            '/files',
            '/items/svc_sessions',
            '/users/me',
            '/collections',
            '/fields/articles',
            '/relations',
          ),
          queryString,
        ),
        async ([who, path, search]) => {
          await send(world, who, { method: 'GET', path: `${path}?${search}` });
        },
      ),
    );

    fuzzIt('GET of assets with any key, transformation parameters and Range header', () =>
      checkProperty(
        fc.tuple(role, fc.option(itemKey, { nil: undefined }), assetParams, fc.option(rangeHeader, { nil: undefined })),
        async ([who, key, search, range]) => {
          const headers: Record<string, string> = range === undefined ? {} : { Range: range };
          await send(world, who, { method: 'GET', path: `/assets/${key ?? world.file}?${search}`, headers });
        },
      ),
    );

    fuzzIt('GET of an item by any key with any query string', () =>
      checkProperty(fc.tuple(role, collection, itemKey, queryString), async ([who, name, key, search]) => {
        await send(world, who, { method: 'GET', path: `/items/${name}/${key}?${search}` });
      }),
    );

    fuzzIt('SEARCH with any query object', () =>
      checkProperty(fc.tuple(role, queryParams), async ([who, params]) => {
        const body = JSON.stringify({ query: Object.fromEntries(params) });
        await send(world, who, { method: 'SEARCH', path: '/items/articles', headers: JSON_HEADERS, body });
      }),
    );

    fuzzIt('POST, PATCH and DELETE with any body', () =>
      checkProperty(
        fc.tuple(
          role,
          fc.constantFrom('POST', 'PATCH', 'DELETE'),
          fc.constantFrom('articles', 'comments'),
          fc.option(itemKey, { nil: undefined }),
          jsonBodyText,
          fc.constantFrom('application/json', 'application/json', 'text/plain', 'application/x-www-form-urlencoded'),
        ),
        async ([who, method, name, key, body, type]) => {
          const path = key === undefined ? `/items/${name}` : `/items/${name}/${key}`;
          await sendWrite(world, who, { method, path, headers: { 'Content-Type': type }, body });
        },
      ),
    );

    fuzzIt('POST /files with any multipart body: a refused upload leaves no row and no file', () =>
      checkProperty(fc.tuple(role, multipartBody), async ([who, { boundary, body }]) => {
        const before = await storedNames(FUZZ_ENV.STORAGE_LOCAL_ROOT);
        const answer = await sendWrite(world, who, {
          method: 'POST',
          path: '/files',
          headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
          body,
        });
        if (answer.status >= 400) expect(await storedNames(FUZZ_ENV.STORAGE_LOCAL_ROOT)).to.deep.equal(before);
      }),
    );

    fuzzIt('writes with a query string on top', () =>
      checkProperty(
        fc.tuple(role, fc.constantFrom('PATCH', 'DELETE'), queryString, jsonBodyText),
        async ([who, method, search, body]) => {
          await sendWrite(world, who, { method, path: `/items/comments?${search}`, headers: JSON_HEADERS, body });
        },
      ),
    );
  },
  { env: FUZZ_ENV },
);
