import {
  admin,
  ARRAY,
  type FixedRoute,
  flagParameter,
  json,
  object,
  OBJECT,
  queryParameter,
  REQUIRED_TEXT,
  TEXT,
} from '../openapi-describe.js';

/** The OpenAPI descriptions of /schema (openapi.ts; test: every served route described, and only those). */
export const SCHEMA_OPENAPI: readonly FixedRoute[] = [
  {
    path: '/schema/snapshot',
    method: 'get',
    tag: 'Schema',
    summary: 'Snapshot of the user schema (collections, fields, relations)',
    caller: admin,
    parameters: [
      queryParameter('export', 'Download the snapshot as a file.', { type: 'string', enum: ['json', 'yaml'] }),
    ],
    answer: {
      kind: 'data',
      schema: object({
        version: { type: 'integer' },
        vendor: TEXT,
        hash: TEXT,
        collections: ARRAY,
        fields: ARRAY,
        relations: ARRAY,
      }),
    },
  },
  {
    path: '/schema/diff',
    method: 'post',
    tag: 'Schema',
    summary: 'Difference from the current schema to a snapshot; 204 when none',
    caller: admin,
    parameters: [flagParameter('force', 'Diff a snapshot of another database vendor.')],
    body: {
      ...json(
        object(
          { version: { type: 'integer' }, vendor: REQUIRED_TEXT, collections: ARRAY, fields: ARRAY, relations: ARRAY },
          ['version', 'vendor', 'collections', 'fields', 'relations'],
        ),
      ),
      // The download of GET /schema/snapshot?export=yaml|json, uploaded as a file.
      'multipart/form-data': { schema: object({ file: { type: 'string', format: 'binary' } }, ['file']) },
    },
    answer: { kind: 'data', schema: object({ hash: TEXT, diff: OBJECT }) },
  },
  {
    path: '/schema/apply',
    method: 'post',
    tag: 'Schema',
    summary: 'Apply a diff made against the current schema',
    caller: admin,
    parameters: [
      flagParameter(
        'allow_destructive',
        'Allow steps that drop stored data or change stored numbers (a new type, precision or scale).',
      ),
    ],
    body: {
      ...json(object({ hash: REQUIRED_TEXT, diff: OBJECT }, ['hash', 'diff'])),
      // The answer of POST /schema/diff saved as a JSON or YAML file, uploaded.
      'multipart/form-data': { schema: object({ file: { type: 'string', format: 'binary' } }, ['file']) },
    },
    answer: { kind: 'none' },
  },
];
