import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { activityIdOf, checkCommentPayload, commentIdOf } from '../../../src/commands/comment-link.js';
import { InvalidPayloadError } from '../../../src/errors.js';

describe('comment link: svc_comments id ⇄ svc_activity id', () => {
  it('is a version-8 UUID of the fixed prefix with the activity id in its last 48 bits', () => {
    expect(commentIdOf(1)).to.equal('ac71c0de-0000-8000-8000-000000000001');
    expect(commentIdOf(2 ** 31 - 1)).to.equal('ac71c0de-0000-8000-8000-00007fffffff');
    expect(commentIdOf(2 ** 48 - 1)).to.equal('ac71c0de-0000-8000-8000-ffffffffffff');
    const id = commentIdOf(123_456);
    expect(id[14], 'version nibble').to.equal('8');
    expect(id[19], 'variant 10xx').to.be.oneOf(['8', '9', 'a', 'b']);
  });

  it('reads back the activity id, in either case, and nothing from other ids', () => {
    for (const activity of [1, 255, 4096, 2 ** 31 - 1, 2 ** 48 - 1])
      expect(activityIdOf(commentIdOf(activity))).to.equal(activity);
    expect(activityIdOf('AC71C0DE-0000-8000-8000-00000000002A')).to.equal(42);
    for (const other of [
      randomUUID(),
      'ac71c0de-0000-8000-8000-00000000002',
      'ac71c0de-0000-8000-8000-00000000002g',
      ' ac71c0de-0000-8000-8000-000000000001',
      42,
      null,
    ]) {
      expect(activityIdOf(other), String(other)).to.equal(undefined);
    }
  });

  it('refuses an activity id it cannot hold', () => {
    for (const bad of [0, -1, 1.5, 2 ** 48]) expect(() => commentIdOf(bad), String(bad)).to.throw(Error);
  });

  it('a svc_comments payload may not bring a linked id of its own', () => {
    expect(() => checkCommentPayload({ id: commentIdOf(7), comment: 'x' })).to.throw(InvalidPayloadError);
    expect(() => checkCommentPayload({ id: randomUUID(), comment: 'x' })).to.not.throw();
    expect(() => checkCommentPayload({ comment: 'x' })).to.not.throw();
  });
});
