import { pathSegment } from '../errors.js';
import { ItemsHandler } from '../items.js';
import type { ITransport } from '../transport.js';
import type { ActivityType, ID } from '../types.js';

/** Comments on items through /activity/comment. */
export class CommentsHandler<T = ActivityType> {
  constructor(private readonly transport: ITransport) {}

  async create(comment: { collection: string; item: ID; comment: string }): Promise<T | undefined> {
    return (await this.transport.post<T>('/activity/comment', comment)).data;
  }

  async update(id: ID, comment: string): Promise<T | undefined> {
    return (await this.transport.patch<T>(`/activity/comment/${pathSegment('id', id)}`, { comment })).data;
  }

  async delete(id: ID): Promise<void> {
    await this.transport.delete(`/activity/comment/${pathSegment('id', id)}`);
  }
}

/** svc_activity items plus `comments`. */
export class ActivityHandler<T = ActivityType> extends ItemsHandler<T> {
  readonly comments: CommentsHandler<T>;

  constructor(transport: ITransport) {
    super('svc_activity', transport);
    this.comments = new CommentsHandler<T>(transport);
  }
}
