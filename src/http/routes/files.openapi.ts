import {
  ASSET_ANSWER,
  ASSET_PARAMETERS,
  FIELDS,
  FILE_ID,
  FILES,
  type FixedRoute,
  json,
  mayCreate,
  mayRead,
  NULLABLE_OBJECT,
  object,
  pathParameter,
  REQUIRED_TEXT,
  TEXT,
} from '../openapi-describe.js';

/** The OpenAPI descriptions of /files and /assets (openapi.ts; test: every served route described, and only those). */
export const FILES_OPENAPI: readonly FixedRoute[] = [
  {
    path: '/files/import',
    method: 'post',
    tag: 'Files',
    summary: 'Import a file from a URL',
    caller: mayCreate(FILES),
    parameters: [FIELDS],
    body: json(object({ url: REQUIRED_TEXT, data: NULLABLE_OBJECT }, ['url'])),
    answer: { kind: 'item', collection: FILES },
  },
  {
    path: '/assets/{id}',
    method: 'get',
    tag: 'Assets',
    summary: "A file's content",
    caller: mayRead(FILES),
    parameters: [FILE_ID, ...ASSET_PARAMETERS],
    answer: ASSET_ANSWER,
  },
  {
    path: '/assets/{id}/{filename}',
    method: 'get',
    tag: 'Assets',
    summary: "A file's content (the filename is cosmetic)",
    caller: mayRead(FILES),
    parameters: [FILE_ID, pathParameter('filename', 'Any name', TEXT), ...ASSET_PARAMETERS],
    answer: ASSET_ANSWER,
  },
];
