import { expect } from 'chai';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import fc from 'fast-check';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { CsvColumnsGrew, escapeFormula, flatten, formatItems } from '../../../src/files/export/export-formats.js';
import type { ExportFormat, Item } from '../../../src/query/index.js';

const tempDir = mkdtempSync(join(tmpdir(), 'svc-export-'));
after(() => rmSync(tempDir, { recursive: true, force: true }));

async function format(
  items: readonly Item[],
  as: ExportFormat,
  options: { csvBatchRows?: number; csvEscapeFormulas?: boolean; csvDirect?: boolean } = {},
): Promise<string> {
  async function* source(): AsyncGenerator<Item> {
    yield* items;
  }
  let text = '';
  for await (const piece of formatItems(source(), as, { tempDir, csvEscapeFormulas: true, ...options })) text += piece;
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
    for (const rows of [1, 2, 3, 1000])
      expect(await format(items, 'csv', { csvBatchRows: rows }), `batches of ${rows}`).to.equal(expected);
  });

  it('csv straight through (csvDirect) writes the same text when the first batch has every column, and nothing to disk', async () => {
    expect(await format(ITEMS, 'csv', { csvDirect: true })).to.equal(await format(ITEMS, 'csv'));
    expect(await format([], 'csv', { csvDirect: true })).to.equal('');
    expect(await format([{}, {}], 'csv', { csvDirect: true })).to.equal('');
    const items: Item[] = [{}, { a: 'x\ny', b: 1 }, { a: 'z' }, { a: '"q"', c: true }, { d: { e: null } }];
    expect(await format(items, 'csv', { csvDirect: true, csvBatchRows: 1000 })).to.equal(
      await format(items, 'csv', { csvBatchRows: 1000 }),
    );
    let grew: unknown;
    await format(items, 'csv', { csvDirect: true, csvBatchRows: 2 }).catch((error: unknown) => (grew = error));
    expect(grew).to.be.instanceOf(CsvColumnsGrew);
    expect((grew as CsvColumnsGrew).column).to.equal('c');
    expect(readdirSync(tempDir)).to.deep.equal([]);
  });

  it('csv straight through: for any items and batch size, the text of the first pass or CsvColumnsGrew, never another text', async () => {
    const item = fc.dictionary(
      fc.constantFrom('a', 'b', 'c', 'd'),
      fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(item, { maxLength: 8 }), fc.integer({ min: 1, max: 4 }), async (items, rows) => {
        const spooled = await format(items, 'csv', { csvBatchRows: rows });
        const direct = await format(items, 'csv', { csvBatchRows: rows, csvDirect: true }).catch((error: unknown) => {
          expect(error).to.be.instanceOf(CsvColumnsGrew);
          return undefined;
        });
        if (direct !== undefined) expect(direct).to.equal(spooled);
        const firstBatchKeys = new Set(items.slice(0, rows).flatMap((i) => Object.keys(i)));
        const allKeys = new Set(items.flatMap((i) => Object.keys(i)));
        expect(direct === undefined, 'fails exactly when a later row brings a column').to.equal(
          allKeys.size > firstBatchKeys.size,
        );
      }),
      { numRuns: 200 },
    );
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

  describe('csv formula injection (OWASP)', () => {
    const HOSTILE: Item[] = [
      {
        id: 1,
        '=cmd': '=HYPERLINK("http://evil.example","click")',
        plus: '+1+1',
        minus: '-2+3',
        at: '@SUM(A1:A9)',
        tab: '\tx',
        cr: '\rx',
      },
      { id: -5, '=cmd': 'a=b', plus: '+3', minus: '-5.50', at: '-1e5', tab: 'plain', cr: ['=in array'] },
    ];

    it('puts a quote before text cells a spreadsheet would run, header cells included; numbers stay as they are', async () => {
      expect(await format(HOSTILE, 'csv')).to.equal(
        [
          `"id","'=cmd","plus","minus","at","tab","cr"`,
          `1,"'=HYPERLINK(""http://evil.example"",""click"")","'+1+1","'-2+3","'@SUM(A1:A9)","'\tx","'\rx"`,
          `-5,"a=b","+3","-5.50","-1e5","plain","[""=in array""]"`,
          '',
        ].join('\n'),
      );
    });

    it('EXPORT_CSV_ESCAPE_FORMULAS=false writes the cells as they are', async () => {
      expect(await format(HOSTILE.slice(0, 1), 'csv', { csvEscapeFormulas: false })).to.equal(
        [
          `"id","=cmd","plus","minus","at","tab","cr"`,
          `1,"=HYPERLINK(""http://evil.example"",""click"")","+1+1","-2+3","@SUM(A1:A9)","\tx","\rx"`,
          '',
        ].join('\n'),
      );
    });

    it('escapes cells of rows written before their column appeared (later batches) the same way', async () => {
      const items: Item[] = [{ a: '=1' }, { a: 'x', b: '@2' }];
      expect(await format(items, 'csv', { csvBatchRows: 1 })).to.equal(
        ['"a","b"', `"'=1",`, `"x","'@2"`, ''].join('\n'),
      );
    });

    it('any text: a cell reads back as the text, with a quote before exactly the ones that start a formula', async () => {
      const text = fc.oneof(
        fc.string({ unit: 'binary' }),
        fc.tuple(fc.constantFrom('=', '+', '-', '@', '\t', '\r', "'", '"', ','), fc.string()).map(([a, b]) => a + b),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.record({ t: text, n: fc.integer() }), { minLength: 1, maxLength: 5 }),
          async (rows) => {
            const parsed = parseCsv(await format(rows, 'csv'), { relax_quotes: false }) as string[][];
            expect(parsed[0]).to.deep.equal(['t', 'n']);
            rows.forEach((row, i) => {
              const isNumber = row.t.trim() === row.t && row.t !== '' && Number.isFinite(Number(row.t));
              const isFormula = /^[=+\-@\t\r]/.test(row.t) && !isNumber;
              expect(parsed[i + 1]).to.deep.equal([isFormula ? `'${row.t}` : row.t, String(row.n)]);
            });
          },
        ),
        { numRuns: 100 },
      );
    });

    it('escapeFormula leaves plain numbers written as text alone', () => {
      for (const text of ['-5', '-5.50', '+3', '-.5', '-1e5', '+2E-3', '5'])
        expect(escapeFormula(text), text).to.equal(text);
      for (const text of ['-', '+', '-5+1', '-1e', '--5', '-5 ', '- 5', '=5', '@', '-0x10', '-Infinity'])
        expect(escapeFormula(text), text).to.equal(`'${text}`);
    });
  });

  describe('well-formed output for any data', () => {
    const HOSTILE_KEYS = [
      '<x>',
      'a b',
      '?pi',
      '#text',
      '@_name',
      ':@',
      '',
      '1abc',
      'a:b',
      'x"y\'z',
      ']]>',
      '\u0000text',
      '\u0001',
      'field',
      'é-ü.1',
      '-x',
      'a&b',
      '\ud800',
    ];
    const HOSTILE_TEXT = [
      '\u0000\u0001\u0008\u000b\u000c\u001f',
      ']]>',
      '<&>"\'',
      '\ud800 lone \udc00',
      '\uFFFE\uFFFF',
      '\r\n',
      '😀',
      '<!-- x -->',
      '<![CDATA[ x ]]>',
      '&amp;',
      '\u2028\u0085\u007f',
    ];
    /** Anything outside XML 1.0's Char production. */
    const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

    function expectWellFormedXml(xml: string): void {
      expect(XMLValidator.validate(xml)).to.equal(true);
      expect(NOT_XML_CHAR.exec(xml), 'a character XML cannot carry').to.equal(null);
      expect(xml.startsWith("<?xml version='1.0'?>\n<data>")).to.equal(true);
    }

    it('xml: keys that are not XML names become <field name="…">, values are escaped, bad characters replaced', async () => {
      // [key, value, the name attribute read back, the text read back]
      const CASES: readonly (readonly [string, string, string, string])[] = [
        ['<x>', '\u0000\u0001\u0008\u000b\u000c\u001f', '<x>', '\uFFFD'.repeat(6)],
        ['a b', ']]>', 'a b', ']]>'],
        ['?pi', '<&>"\'', '?pi', '<&>"\''],
        ['#text', '\ud800 lone \udc00', '#text', '\uFFFD lone \uFFFD'],
        ['@_name', '\uFFFE\uFFFF', '@_name', '\uFFFD\uFFFD'],
        [':@', '😀', ':@', '😀'],
        ['', '<!-- x -->', '', '<!-- x -->'],
        ['1abc', '<![CDATA[ x ]]>', '1abc', '<![CDATA[ x ]]>'],
        ['a:b', '&amp;', 'a:b', '&amp;'],
        ['x"y\'z', '\u2028\u0085\u007f', 'x"y\'z', '\u2028\u0085\u007f'],
        [']]>', 'a\nb', ']]>', 'a\nb'],
        ['\u0000text', 'x', '\uFFFDtext', 'x'],
        ['\ud800', 'y', '\uFFFD', 'y'],
        ['field', 'z', 'field', 'z'],
        ['-x', '-1', '-x', '-1'],
        ['a&b', '=1', 'a&b', '=1'],
      ];
      const item: Item = { 'é-ü.1': 'valid name', ...Object.fromEntries(CASES.map(([key, value]) => [key, value])) };
      const xml = await format([item, { json: { '<k>': ['a', ['b', { ']]>': null }]], ok: {} } }], 'xml');
      expectWellFormedXml(xml);
      const parsed = new XMLParser({
        parseTagValue: false,
        ignoreAttributes: false,
        htmlEntities: true,
        trimValues: false,
      }).parse(xml) as { data: { data: Record<string, unknown>[] } };
      const [first, second] = parsed.data.data;
      expect(first?.['é-ü.1']).to.equal('valid name');
      const fields = first?.['field'] as { '@_name': string; '#text'?: string }[];
      expect(fields.map((f) => [f['@_name'], f['#text'] ?? ''])).to.have.deep.members(
        CASES.map(([, , name, text]) => [name, text]),
      );
      expect(second?.['json']).to.deep.include({ ok: '' });
      expect(xml).to.contain(
        [
          '<field name="&lt;k&gt;">a</field>',
          '<field name="&lt;k&gt;">',
          '    <field name="&lt;k&gt;">b</field>',
          '    <field name="&lt;k&gt;">',
          '        <field name="]]&gt;">null</field>',
          '    </field>',
          '</field>',
        ]
          .map((line) => `            ${line}`)
          .join('\n'),
      );
    });

    it("xml: a json field nested deeper than the builder's default limit", async () => {
      let deep: unknown = 'bottom';
      for (let i = 0; i < 300; i += 1) deep = { level: deep };
      const xml = await format([{ deep: deep as Item }], 'xml');
      expectWellFormedXml(xml);
      expect(xml.match(/<level>/g)).to.have.length(300);
    });

    it('xml, json and yaml stay well-formed for any keys and values', async () => {
      const anyText = fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom(...HOSTILE_KEYS, ...HOSTILE_TEXT));
      const value = fc.letrec((tie) => ({
        leaf: fc.oneof(anyText, fc.integer(), fc.double(), fc.boolean(), fc.constant(null)),
        node: fc.oneof(
          { depthSize: 'small' },
          tie('leaf'),
          fc.array(tie('node'), { maxLength: 3 }),
          fc.dictionary(anyText, tie('node'), { maxKeys: 3 }),
        ),
      })).node;
      // JSON writes NaN and infinities as null; items come from JSON-typed rows anyway.
      const items = fc
        .array(fc.dictionary(anyText, value, { maxKeys: 4 }), { maxLength: 4 })
        .map((list) => JSON.parse(JSON.stringify(list)) as Item[]);
      await fc.assert(
        fc.asyncProperty(items, async (list) => {
          expectWellFormedXml(await format(list, 'xml'));
          const json = await format(list, 'json');
          expect(JSON.parse(json)).to.deep.equal(list);
          // Valid UTF-16 all through: the UTF-8 file holds exactly this text (no U+FFFD from a lone surrogate).
          expect(Buffer.from(json, 'utf8').toString('utf8')).to.equal(json);
          const yaml = await format(list, 'yaml');
          expect(YAML_NOT_PRINTABLE.exec(yaml), 'a character YAML does not allow').to.equal(null);
          expect(Buffer.from(yaml, 'utf8').toString('utf8')).to.equal(yaml);
        }),
        { numRuns: 300 },
      );
    });

    it('json and yaml escape lone surrogates and control characters; yaml also DEL, C1 controls, line separators and BOM', async () => {
      const item: Item = { '\ud800': 'a\udc00\u0001\u007f\u0085\u2028\u2029\ufeff\uffff' };
      expect(JSON.parse(await format([item], 'json'))).to.deep.equal([item]);
      expect(await format([item], 'yaml')).to.equal(
        '- "\\ud800": "a\\udc00\\u0001\\u007f\\u0085\\u2028\\u2029\\ufeff\\uffff"\n',
      );
    });
  });

  it('flattens nested objects with dots and keeps arrays whole', () => {
    expect(flatten({ a: { b: { c: 1 } }, d: [{ e: 1 }], f: {}, g: null })).to.deep.equal({
      'a.b.c': 1,
      d: '[{"e":1}]',
      f: '{}',
      g: null,
    });
  });
});

/** Outside YAML 1.2's c-printable set, plus U+0085, U+2028 and U+2029 (line breaks in YAML 1.1). */
const YAML_NOT_PRINTABLE = /[^\t\n\r\u0020-\u007E\u00A0-\u2027\u202A-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
