import {
  ACTIVITY,
  COMMENT_ID,
  COMMENTS,
  FIELDS,
  type FixedRoute,
  json,
  KEY,
  mayCreate,
  mayDelete,
  mayUpdate,
  object,
  REQUIRED_TEXT,
} from '../openapi-describe.js';

/** The OpenAPI descriptions of /activity/comment (openapi.ts; test: every served route described, and only those). */
export const ACTIVITY_COMMENTS_OPENAPI: readonly FixedRoute[] = [
  {
    path: '/activity/comment',
    method: 'post',
    tag: 'Activity',
    summary: 'Comment on an item',
    caller: mayCreate(ACTIVITY, COMMENTS),
    parameters: [FIELDS],
    body: json(
      object({ collection: REQUIRED_TEXT, item: KEY, comment: REQUIRED_TEXT }, ['collection', 'item', 'comment']),
    ),
    answer: { kind: 'item', collection: ACTIVITY },
  },
  {
    path: '/activity/comment/{id}',
    method: 'patch',
    tag: 'Activity',
    summary: 'Update a comment (its author or an admin)',
    caller: mayUpdate(COMMENTS),
    parameters: [COMMENT_ID, FIELDS],
    body: json(object({ comment: REQUIRED_TEXT }, ['comment'])),
    answer: { kind: 'item', collection: ACTIVITY },
  },
  {
    path: '/activity/comment/{id}',
    method: 'delete',
    tag: 'Activity',
    summary: 'Delete a comment (its author or an admin)',
    caller: mayDelete(COMMENTS),
    parameters: [COMMENT_ID],
    answer: { kind: 'none' },
  },
];
