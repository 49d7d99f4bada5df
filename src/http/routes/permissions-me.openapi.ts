import {
  COLLECTION_ACCESS,
  type FixedRoute,
  ITEM_PERMISSIONS,
  KEY,
  pathParameter,
  readable,
  user,
} from '../openapi-describe.js';

/** The OpenAPI descriptions of /permissions/me (openapi.ts; test: every served route described, and only those). */
export const PERMISSIONS_ME_OPENAPI: readonly FixedRoute[] = [
  {
    path: '/permissions/me',
    method: 'get',
    tag: 'Permissions',
    summary: "The caller's access per collection and action",
    caller: user,
    answer: { kind: 'data', schema: { type: 'object', additionalProperties: COLLECTION_ACCESS } },
  },
  {
    path: '/permissions/me/{collection}',
    method: 'get',
    tag: 'Permissions',
    summary: 'Whether the caller may update, delete and share items of a collection',
    caller: user,
    collections: readable,
    answer: { kind: 'data', schema: ITEM_PERMISSIONS },
  },
  {
    path: '/permissions/me/{collection}/{id}',
    method: 'get',
    tag: 'Permissions',
    summary: 'Whether the caller may update, delete and share one item',
    caller: user,
    collections: readable,
    parameters: [pathParameter('id', 'The primary key of the item', KEY)],
    answer: { kind: 'data', schema: ITEM_PERMISSIONS },
  },
];
