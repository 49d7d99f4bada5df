import { expect } from 'chai';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeEachDatabase, TEST_ADMIN, type ServerContext } from '../../support/server.js';
import { sqliteTarget } from '../../support/services.js';
import { adminApi, countRows, createCommandSchema, dataOf } from '../commands/schema.js';
import { waitForExport } from './export-status.js';
import { adminGet } from './helpers.js';

type Row = Record<string, unknown>;

const dir = mkdtempSync(join(tmpdir(), 'svc-export-injection-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Values a spreadsheet would run, keys that are no XML names, characters XML cannot carry. */
const GADGETS: Row[] = [
  // Keys of `doc` in the order PostgreSQL's jsonb keeps them (shorter first), so every database answers alike.
  {
    rank: 1,
    name: '=1+2',
    count: -5,
    price: '-5.50',
    note: '=HYPERLINK("http://evil.example","x")',
    doc: { 'a b': ['@x', '\u0001'], field: null, '<evil attr="1">': ']]><!--' },
  },
  { rank: 2, name: '@me', count: 3, price: '12.00', note: "+cmd|' /C calc'!A0", doc: [1, [2, '-3']] },
  { rank: 3, name: 'plain', count: null, price: null, note: '\ttab\u0002', doc: null },
];

/** The query both downloads run: aliases whose names are no XML names and start a formula. */
const QUERY = {
  fields: ['rank', 'name', 'count', 'price', 'note', 'doc', '=cmd', '<x y="1"/>'],
  alias: { '=cmd': 'note', '<x y="1"/>': 'name' },
  filter: { rank: { _nnull: true } },
  sort: ['rank'],
};

/** `?export=<format>` of QUERY through SEARCH (its JSON body carries the alias names as they are). */
async function searchExport(ctx: ServerContext, format: string): Promise<string> {
  const res = await ctx.api(`/items/gadgets?export=${format}`, {
    method: 'SEARCH',
    headers: { Authorization: `Bearer ${TEST_ADMIN.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ query: { ...QUERY, export: format } }),
  });
  expect(res.status).to.equal(200);
  return res.text();
}

/** Runs QUERY as an export job (in-process, no Redis) and downloads the file it stored. */
async function jobExport(ctx: ServerContext, format: string): Promise<string> {
  const res = await adminApi(ctx, 'POST', '/utils/export/gadgets', { format, query: QUERY });
  expect(res.status).to.equal(204);
  const done = await waitForExport(
    ctx,
    (r) => r.status.format === format && r.status.status !== 'running' && r.status.status !== 'queued',
  );
  expect(done.status).to.include({ status: 'done', rows_done: GADGETS.length, error: null });
  return (await adminGet(ctx, `/assets/${String(done.status.file)}`)).text();
}

async function seed(ctx: ServerContext): Promise<void> {
  await createCommandSchema(ctx);
  expect(dataOf<Row[]>(await adminApi(ctx, 'POST', '/items/gadgets', GADGETS))).to.have.length(GADGETS.length);
}

/** The csv of QUERY; SQLite keeps decimals as floats (numbers), the others as text with the scale. */
function expectedCsv(ctx: ServerContext, isEscaped: boolean): string {
  const q = isEscaped ? "'" : '';
  const [negative, positive] = ctx.dialect === 'sqlite' ? ['-5.5', '12'] : ['"-5.50"', '"12.00"'];
  return [
    `"rank","name","count","price","note","doc.a b","doc.field","doc.<evil attr=""1"">","${q}=cmd","<x y=""1""/>","doc"`,
    `1,"${q}=1+2",-5,${negative},"${q}=HYPERLINK(""http://evil.example"",""x"")","[""@x"",""\\u0001""]",,"]]><!--","${q}=HYPERLINK(""http://evil.example"",""x"")","${q}=1+2",`,
    `2,"${q}@me",3,${positive},"${q}+cmd|' /C calc'!A0",,,,"${q}+cmd|' /C calc'!A0","${q}@me","[1,[2,""-3""]]"`,
    `3,"plain",,,"${q}\ttab\u0002",,,,"${q}\ttab\u0002","plain",`,
    '',
  ].join('\n');
}

describeEachDatabase(
  'exports as an attack channel',
  (ctx) => {
    before(() => seed(ctx()));

    it('csv: cells a spreadsheet would run get a leading quote, in ?export=csv and in the export job alike; numbers keep their sign', async () => {
      const expected = expectedCsv(ctx(), true);
      expect(await searchExport(ctx(), 'csv')).to.equal(expected);
      expect(await jobExport(ctx(), 'csv')).to.equal(expected);
    });

    it('xml: well-formed for alias names and json keys that are no XML names, and for control characters', async () => {
      for (const xml of [await searchExport(ctx(), 'xml'), await jobExport(ctx(), 'xml')]) {
        expect(XMLValidator.validate(xml)).to.equal(true);
        expect(
          /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u.exec(xml),
          'a character XML cannot carry',
        ).to.equal(null);
        const parsed = new XMLParser({
          parseTagValue: false,
          ignoreAttributes: false,
          trimValues: false,
          isArray: (name) => name === 'field',
        }).parse(xml) as { data: { data: Row[] } };
        const [first, , third] = parsed.data.data;
        expect(first?.['field']).to.deep.equal([
          { '#text': '=HYPERLINK("http://evil.example","x")', '@_name': '=cmd' },
          { '#text': '=1+2', '@_name': '<x y="1"/>' },
        ]);
        const doc = first?.['doc'] as Row;
        expect(doc['field']).to.deep.equal([
          { '#text': '@x', '@_name': 'a b' },
          { '#text': '\uFFFD', '@_name': 'a b' },
          { '#text': 'null', '@_name': 'field' },
          { '#text': ']]><!--', '@_name': '<evil attr="1">' },
        ]);
        expect(third?.['note']).to.equal('\ttab\uFFFD');
      }
    });

    it('json and yaml: the same data, valid, with control characters escaped', async () => {
      const json = JSON.parse(await searchExport(ctx(), 'json')) as Row[];
      expect(
        json.map((item) => [item['name'], item['count'], item['=cmd'], item['<x y="1"/>'], item['doc']]),
      ).to.deep.equal(GADGETS.map((g) => [g['name'], g['count'], g['note'], g['name'], g['doc']]));
      const yaml = await searchExport(ctx(), 'yaml');
      expect(yaml).to.contain('"note": "\\ttab\\u0002"');
      expect(await jobExport(ctx(), 'json')).to.equal(await searchExport(ctx(), 'json'));
    });
  },
  { env: { STORAGE_LOCAL_ROOT: join(dir, 'uploads'), TEMP_PATH: join(dir, 'tmp') } },
);

describeEachDatabase(
  'EXPORT_CSV_ESCAPE_FORMULAS=false',
  (ctx) => {
    before(() => seed(ctx()));

    it('writes the cells as they are, in ?export=csv and in the export job', async () => {
      const raw = expectedCsv(ctx(), false);
      const files = await countRows(ctx().server.db, ['svc_files']);
      expect(await searchExport(ctx(), 'csv')).to.equal(raw);
      expect(await jobExport(ctx(), 'csv')).to.equal(raw);
      expect(await countRows(ctx().server.db, ['svc_files'])).to.deep.equal({
        svc_files: (files['svc_files'] ?? 0) + 1,
      });
    });
  },
  {
    targets: [sqliteTarget],
    env: {
      STORAGE_LOCAL_ROOT: join(dir, 'uploads-raw'),
      TEMP_PATH: join(dir, 'tmp-raw'),
      EXPORT_CSV_ESCAPE_FORMULAS: 'false',
    },
  },
);
