import {
  admin,
  ANY_COLLECTION,
  ARRAY,
  COLLECTION_ACCESS,
  type FixedRoute,
  ITEM_PERMISSIONS,
  KEY,
  pathParameter,
  TEXT,
  readable,
  user,
} from '../openapi-describe.js';

const ROLE = pathParameter('role', 'The svc_roles row, or `public`', TEXT);

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

  {
    path: '/permissions/preview/{role}',
    method: 'get',
    tag: 'Permissions',
    summary: "A role's access per collection and action, as /permissions/me answers its members (admin only)",
    caller: admin,
    parameters: [ROLE],
    answer: { kind: 'data', schema: { type: 'object', additionalProperties: COLLECTION_ACCESS } },
  },
  {
    path: '/permissions/preview/{role}/items/{collection}',
    method: 'get',
    tag: 'Permissions',
    summary: 'The items of a collection as a role reads them, read-only (admin only)',
    caller: admin,
    parameters: [ROLE, ANY_COLLECTION],
    answer: { kind: 'data', schema: ARRAY },
  },
];
