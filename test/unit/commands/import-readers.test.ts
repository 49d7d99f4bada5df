import { expect } from 'chai';
import { Readable } from 'node:stream';
import { readCsvItems } from '../../../src/commands/import/read-csv-items.js';
import { readJsonItems } from '../../../src/commands/import/read-json-items.js';
import type { Item } from '../../../src/commands/types.js';
import { ROWS_PER_STEP } from '../../../src/commands/give-way.js';
import { InvalidPayloadError } from '../../../src/errors.js';
import { FIXTURE_OVERVIEW, requireFixture } from './fixture-overview.js';

/** The items of a reader's pieces, each checked to be of ROWS_PER_STEP items but the last. */
async function collect(pieces: AsyncIterable<Item[]>): Promise<Item[]> {
  const out: Item[] = [];
  const sizes: number[] = [];
  for await (const piece of pieces) {
    sizes.push(piece.length);
    out.push(...piece);
  }
  const full = sizes.slice(0, -1).every((size) => size === ROWS_PER_STEP);
  expect(full && sizes.every((size) => size > 0 && size <= ROWS_PER_STEP), `pieces of ${sizes.join(', ')}`).to.equal(
    true,
  );
  return out;
}

/** The text cut into pieces of `size` bytes, so values straddle chunk boundaries. */
function chunks(text: string, size: number): Readable {
  const bytes = Buffer.from(text);
  const pieces: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) pieces.push(bytes.subarray(i, i + size));
  return Readable.from(pieces);
}

async function failure(items: AsyncIterable<Item[]>): Promise<string> {
  try {
    await collect(items);
  } catch (error) {
    expect(error).to.be.instanceOf(InvalidPayloadError);
    return (error as InvalidPayloadError).extensions.reason;
  }
  throw new Error('expected INVALID_PAYLOAD');
}

describe('import readers', () => {
  describe('JSON', () => {
    const items = [
      { id: 1, title: 'a "quoted" ] } [ { title', tags: [1, { n: 'é' }] },
      { title: 'ü\\', nested: { deep: [[]] } },
      {},
    ];

    it('yields each object of the array, whatever the chunking (multi-byte characters split included)', async () => {
      const text = `\ufeff  ${JSON.stringify(items, null, 2)}\n`;
      for (const size of [1, 2, 3, 7, 1024])
        expect(await collect(readJsonItems(chunks(text, size))), `chunks of ${size}`).to.deep.equal(items);
      expect(await collect(readJsonItems(chunks('[]', 1)))).to.deep.equal([]);
    });

    it('refuses what is not an array of objects, naming the row', async () => {
      expect(await failure(readJsonItems(chunks('{"a":1}', 4)))).to.equal(
        'The JSON file has to contain an array of items',
      );
      expect(await failure(readJsonItems(chunks('', 4)))).to.equal('The JSON file has to contain an array of items');
      expect(await failure(readJsonItems(chunks('[{"a":1}, 2]', 4)))).to.equal('Row 2 has to be an object');
      expect(await failure(readJsonItems(chunks('[{"a":1}, {"b":}]', 4)))).to.match(/^Invalid JSON in row 2: /);
      expect(await failure(readJsonItems(chunks('[{"a":1} {"b":2}]', 4)))).to.equal(
        'Invalid JSON after row 1: expected "," or "]"',
      );
      expect(await failure(readJsonItems(chunks('[{"a":1}, {"b":', 4)))).to.equal(
        'Invalid JSON: the file ends inside row 2',
      );
      expect(await failure(readJsonItems(chunks('[{"a":1}] x', 4)))).to.equal(
        'Invalid JSON: content after the array of items',
      );
    });
  });

  it('hand their items over ROWS_PER_STEP at a time, in file order, the last piece the rest', async () => {
    const count = 3 * ROWS_PER_STEP + 2;
    const titles = Array.from({ length: count }, (_, i) => `t${i}`);
    const pieces = async (reader: AsyncIterable<Item[]>) => {
      const sizes: number[] = [];
      const read: unknown[] = [];
      for await (const piece of reader) {
        sizes.push(piece.length);
        read.push(...piece.map((item) => item['title']));
      }
      expect(read).to.deep.equal(titles);
      return sizes;
    };
    const expected = [ROWS_PER_STEP, ROWS_PER_STEP, ROWS_PER_STEP, 2];
    const json = JSON.stringify(titles.map((title) => ({ title })));
    expect(await pieces(readJsonItems(chunks(json, 7)))).to.deep.equal(expected);
    const csv = `title\n${titles.join('\n')}\n`;
    expect(await pieces(readCsvItems(chunks(csv, 7), FIXTURE_OVERVIEW, requireFixture('articles')))).to.deep.equal(
      expected,
    );
  });

  describe('CSV', () => {
    const read = (text: string, collection = 'things') =>
      collect(readCsvItems(chunks(text, 5), FIXTURE_OVERVIEW, requireFixture(collection)));

    it('reads each cell per its field type; empty cells are left out', async () => {
      const csv =
        'id,count,flag,doc,list,label,ratio,secret\n' +
        'b3a1f2c4-0000-4000-8000-000000000001,12,true,"{""a"":[1,2]}","[""x"",""y""]",true,,null\n' +
        ',0012,0,null,a,b,null,x\n';
      expect(await read(csv)).to.deep.equal([
        {
          id: 'b3a1f2c4-0000-4000-8000-000000000001',
          count: '12',
          flag: true,
          doc: { a: [1, 2] },
          list: ['x', 'y'],
          label: 'true',
          secret: 'null',
        },
        { count: '0012', flag: false, doc: null, list: 'a', label: 'b', ratio: null, secret: 'x' },
      ]);
    });

    it('reads a chunk of many KB (parsed a slice at a time) whole, characters cut between slices included', async () => {
      // Rows of 1 to 4-byte characters: across 100 KB the slices' cuts fall inside some of them.
      const labels = Array.from({ length: 5000 }, (_, i) => `${i} é€😀${'x'.repeat(i % 7)}`);
      const csv = `label\n${labels.join('\n')}\n`;
      expect(Buffer.byteLength(csv)).to.be.greaterThan(64 * 1024);
      const items = await collect(
        readCsvItems(Readable.from([Buffer.from(csv)]), FIXTURE_OVERVIEW, requireFixture('things')),
      );
      expect(items.map((item) => item['label'])).to.deep.equal(labels);
    });

    it('reads relational cells as JSON and nests dotted columns of a many-to-one', async () => {
      const csv =
        'title,author,author.name,comments,tags\n' +
        'One,7,,"[1,2]","[{""tags_id"":3}]"\n' +
        'Two,,Ann,,\n' +
        'Three,"{""name"":""Bo""}",,,\n';
      expect(await read(csv, 'articles')).to.deep.equal([
        { title: 'One', author: '7', comments: [1, 2], tags: [{ tags_id: 3 }] },
        { title: 'Two', author: { name: 'Ann' } },
        { title: 'Three', author: { name: 'Bo' } },
      ]);
    });

    it('nests dotted columns of a json field into its object, as an export flattens it', async () => {
      const csv =
        'label,doc,doc.a,doc.b.c\n' + 'x,,1,s\n' + 'y,null,,\n' + 'z,"{""k"":1}",,\n' + 'w,,"[1,""two""]",true\n';
      expect(await read(csv)).to.deep.equal([
        { label: 'x', doc: { a: 1, b: { c: 's' } } },
        { label: 'y', doc: null },
        { label: 'z', doc: { k: 1 } },
        { label: 'w', doc: { a: [1, 'two'], b: { c: true } } },
      ]);
    });

    it('refuses a column that names no field, naming it (issue 13)', async () => {
      for (const header of ['nope', 'nope.deeper', 'author.nope', 'title.a']) {
        expect(
          await failure(
            readCsvItems(chunks(`title,${header}\nx,y\n`, 4), FIXTURE_OVERVIEW, requireFixture('articles')),
          ),
        ).to.equal(`Column "${header}" is not a field of collection "articles"`);
      }
    });

    it('refuses malformed CSV naming the row', async () => {
      expect(
        await failure(
          readCsvItems(chunks('title,views\na,1\nb,2,3\n', 4), FIXTURE_OVERVIEW, requireFixture('articles')),
        ),
      ).to.match(/^Invalid CSV in row 2: Invalid Record Length/);
    });
  });
});
