import { expect } from 'chai';
import { maySaveBookmark, sameView, type View } from '../../../src/console/studio/list/view.js';

const SAVED: View = {
  layout: 'tabular',
  fields: null,
  sort: null,
  page: 1,
  limit: 25,
  widths: { title: 320, id: 80 },
  filter: { views: { _gte: 90 } },
  search: null,
};
const DEFAULTS = { fields: ['id', 'title'], sort: 'id' };

describe('console list views', () => {
  it('counts a view unchanged when it differs from the saved one only by its page or spelled-out defaults', () => {
    for (const same of [
      { ...SAVED, page: 3 },
      { ...SAVED, fields: ['id', 'title'], sort: 'id' },
      { ...SAVED, widths: { id: 80, title: 320 } },
      { ...SAVED, search: '' },
    ])
      expect(sameView(same, SAVED, DEFAULTS), JSON.stringify(same)).to.equal(true);
    expect(sameView({ ...SAVED, filter: {} }, { ...SAVED, filter: null }, DEFAULTS)).to.equal(true);
  });

  it('counts a view changed by its filter, search, sort, columns, layout, limit or widths', () => {
    for (const changed of [
      { ...SAVED, filter: { views: { _gte: 91 } } },
      { ...SAVED, filter: null },
      { ...SAVED, search: 'Article' },
      { ...SAVED, sort: '-id' },
      { ...SAVED, fields: ['id'] },
      { ...SAVED, layout: 'cards' as const },
      { ...SAVED, limit: 50 },
      { ...SAVED, widths: { title: 300, id: 80 } },
    ])
      expect(sameView(changed, SAVED, DEFAULTS), JSON.stringify(changed)).to.equal(false);
  });

  it('lets the owner save into a bookmark, and an administrator into a role or global one only', () => {
    const me = { id: 'u1', adminAccess: false };
    const admin = { id: 'a1', adminAccess: true };
    expect(maySaveBookmark({ user: 'u1', role: null }, me)).to.equal(true);
    expect(maySaveBookmark({ user: null, role: 'r1' }, me)).to.equal(false);
    expect(maySaveBookmark({ user: null, role: null }, me)).to.equal(false);
    expect(maySaveBookmark({ user: 'u2', role: null }, me)).to.equal(false);
    expect(maySaveBookmark({ user: null, role: 'r1' }, admin)).to.equal(true);
    expect(maySaveBookmark({ user: null, role: null }, admin)).to.equal(true);
    expect(maySaveBookmark({ user: 'u1', role: null }, admin)).to.equal(false);
  });
});
