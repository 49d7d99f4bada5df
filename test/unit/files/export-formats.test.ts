import { expect } from 'chai';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { flatten, formatItems } from '../../../src/files/export/export-formats.js';
import type { ExportFormat, Item } from '../../../src/query/index.js';

const tempDir = mkdtempSync(join(tmpdir(), 'svc-export-'));
after(() => rmSync(tempDir, { recursive: true, force: true }));

async function format(items: readonly Item[], as: ExportFormat, csvBatchRows?: number): Promise<string> {
  async function* source(): AsyncGenerator<Item> {
    yield* items;
  }
  let text = '';
  for await (const piece of formatItems(source(), as, { tempDir, ...(csvBatchRows === undefined ? {} : { csvBatchRows }) })) text += piece;
  return text;
}

const ITEMS: Item[] = [
  { id: 1, title: 'He said "hi"', tags: ['a', 'b'], published: true, author: { email: 'a@example.com' } },
  { id: 2, title: 'Line\nbreak', tags: [], published: false, author: null },
];

describe('export formats', () => {
  it('json is JSON.stringify(items, null, "\\t"), also for no items', async () => {
    expect(await format(ITEMS, 'json')).to.equal(JSON.stringify(ITEMS, null, '\t'));
    expect(await format([], 'json')).to.equal(JSON.stringify([], null, '\t'));
  });

  it('csv: union header in first-seen order, flattened objects, arrays as JSON, quoted strings, bare numbers and booleans', async () => {
    expect(await format(ITEMS, 'csv')).to.equal(
      [
        '"id","title","tags","published","author.email","author"',
        '1,"He said ""hi""","[""a"",""b""]",true,"a@example.com",',
        '2,"Line\nbreak","[]",false,,',
        '',
      ].join('\n'),
    );
    expect(await format([], 'csv')).to.equal('');
    expect(readdirSync(tempDir), 'the first pass is removed').to.deep.equal([]);
  });

  it('csv: columns that appear in a later batch give the earlier rows empty cells, newlines in values included', async () => {
    const items: Item[] = [{}, { a: 'x\ny', b: 1 }, { a: 'z' }, { a: '"q"', c: true }, { d: { e: null } }];
    const expected = ['"a","b","c","d.e"', ',,,', '"x\ny",1,,', '"z",,,', '"""q""",,true,', ',,,', ''].join('\n');
    for (const rows of [1, 2, 3, 1000]) expect(await format(items, 'csv', rows), `batches of ${rows}`).to.equal(expected);
  });

  it('xml: a <data> root with one <data> element per item, 4-space indent, arrays repeated, null as text', async () => {
    const xml = await format(ITEMS, 'xml');
    expect(xml.split('\n').slice(0, 12)).to.deep.equal([
      "<?xml version='1.0'?>",
      '<data>',
      '    <data>',
      '        <id>1</id>',
      '        <title>He said &quot;hi&quot;</title>',
      '        <tags>a</tags>',
      '        <tags>b</tags>',
      '        <published>true</published>',
      '        <author>',
      '            <email>a@example.com</email>',
      '        </author>',
      '    </data>',
    ]);
    const parsed = new XMLParser({ parseTagValue: false }).parse(xml) as { data: { data: Record<string, unknown>[] } };
    expect(parsed.data.data[1]).to.deep.equal({ id: '2', title: 'Line\nbreak', published: 'false', author: 'null' });
  });

  it('xml escapes markup in values', async () => {
    const xml = await format([{ note: '<b> & </b>' }], 'xml');
    expect(xml).to.contain('<note>&lt;b&gt; &amp; &lt;/b&gt;</note>');
  });

  it('yaml: a sequence of mappings', async () => {
    expect(await format(ITEMS.slice(0, 1), 'yaml')).to.equal(
      '- "id": 1\n  "title": "He said \\"hi\\""\n  "tags": ["a","b"]\n  "published": true\n  "author": {"email":"a@example.com"}\n',
    );
    expect(await format([], 'yaml')).to.equal('[]\n');
  });

  it('flattens nested objects with dots and keeps arrays whole', () => {
    expect(flatten({ a: { b: { c: 1 } }, d: [{ e: 1 }], f: {}, g: null })).to.deep.equal({ 'a.b.c': 1, d: '[{"e":1}]', f: '{}', g: null });
  });
});
