import { canReadCollection } from '../../access/read-access.js';
import { canWrite } from '../../graphql/index.js';
import {
  json,
  KEY,
  object,
  OBJECT,
  parameterRef,
  pathParameter,
  type FixedRoute,
  type Json,
  TEXT,
  type OpenApiInput,
} from '../openapi-describe.js';

const VERSIONS = 'svc_versions';
const VERSION_KEY: Json = { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' };
const VERSION_ID = pathParameter('id', 'The svc_versions row', { type: 'string', format: 'uuid' });
const SELECTION: Json = { keys: { type: 'array', items: KEY }, query: OBJECT };
const RENAME: Json = object({ key: VERSION_KEY, name: { type: 'string', nullable: true } });

const readsVersions = (input: OpenApiInput): boolean => canReadCollection(input.access.read, VERSIONS);
/** Saves and promotes are updates of the item: some collection the caller may update (as for a restore). */
const versionWriter = (input: OpenApiInput): boolean =>
  readsVersions(input) && Object.keys(input.overview.collections).some((c) => canWrite(input.access, 'update', c));
const versionCreator = (input: OpenApiInput): boolean => canWrite(input.access, 'create', VERSIONS);
const versionUpdater = (input: OpenApiInput): boolean => canWrite(input.access, 'update', VERSIONS);
const versionDeleter = (input: OpenApiInput): boolean => input.access.canDelete(VERSIONS);

/**
 * The content version routes (issue 18, http/routes/versions.ts) for the OpenAPI document:
 * the writes of svc_versions (its reads are the system collection's), save, compare, promote.
 */
export const VERSIONS_OPENAPI: readonly FixedRoute[] = [
  {
    path: '/versions',
    method: 'post',
    tag: 'Versions',
    summary: 'Create a named version (draft) of an item of a collection with versioning',
    caller: versionCreator,
    parameters: [parameterRef('Fields')],
    body: json(object({ key: VERSION_KEY, name: TEXT, collection: TEXT, item: KEY }, ['key', 'collection', 'item'])),
    answer: { kind: 'item', collection: VERSIONS },
  },
  {
    path: '/versions',
    method: 'patch',
    tag: 'Versions',
    summary: 'Rename versions (key, name)',
    caller: versionUpdater,
    parameters: [parameterRef('Fields')],
    body: json(object({ ...SELECTION, data: RENAME }, ['data'])),
    answer: { kind: 'item', collection: VERSIONS },
  },
  {
    path: '/versions/{id}',
    method: 'patch',
    tag: 'Versions',
    summary: 'Rename a version (key, name)',
    caller: versionUpdater,
    parameters: [VERSION_ID, parameterRef('Fields')],
    body: json(RENAME),
    answer: { kind: 'item', collection: VERSIONS },
  },
  {
    path: '/versions',
    method: 'delete',
    tag: 'Versions',
    summary: 'Delete versions',
    caller: versionDeleter,
    body: json({ oneOf: [{ type: 'array', items: KEY }, object(SELECTION)] }),
    answer: { kind: 'none' },
  },
  {
    path: '/versions/{id}',
    method: 'delete',
    tag: 'Versions',
    summary: 'Delete a version',
    caller: versionDeleter,
    parameters: [VERSION_ID],
    answer: { kind: 'none' },
  },
  {
    path: '/versions/{id}/save',
    method: 'post',
    tag: 'Versions',
    summary: 'Save changes into a version (checked as an update of the item; the item is untouched)',
    caller: versionWriter,
    parameters: [VERSION_ID, parameterRef('Fields')],
    body: json(OBJECT),
    answer: { kind: 'data', schema: OBJECT },
  },
  {
    path: '/versions/{id}/compare',
    method: 'get',
    tag: 'Versions',
    summary: 'Compare a version with the live item: outdated, mainHash, current, main, fields, conflicts',
    caller: readsVersions,
    parameters: [VERSION_ID],
    answer: {
      kind: 'data',
      schema: object({
        outdated: { type: 'boolean' },
        mainHash: TEXT,
        current: OBJECT,
        main: OBJECT,
        fields: { type: 'array', items: TEXT },
        conflicts: { type: 'array', items: TEXT },
      }),
    },
  },
  {
    path: '/versions/{id}/promote',
    method: 'post',
    tag: 'Versions',
    summary: "Write a version's values to the live item (an audited update); answers the item's key",
    caller: versionWriter,
    parameters: [VERSION_ID],
    body: json(
      object(
        {
          mainHash: TEXT,
          fields: { type: 'array', items: TEXT },
          keep: { type: 'string', enum: ['version', 'main'] },
        },
        ['mainHash'],
      ),
    ),
    answer: { kind: 'data', schema: KEY },
  },
];
