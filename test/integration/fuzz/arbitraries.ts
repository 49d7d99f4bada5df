import fc from 'fast-check';
import { FILTER_OPERATORS } from '../../../catalog/overview/filter-operators.js';
import { AGGREGATE_FUNCTIONS } from '../../../src/query/query.js';

/*
 * The generators of the fuzz suite: query strings, JSON bodies, GraphQL documents, auth and
 * utils bodies, for the read-side fixture (test/integration/query/fixture-schema.ts). Each is
 * mostly well-formed enough to reach deep into the service (known fields, relations,
 * operators), mixed with what a hostile or broken client sends: unknown names, wrong types,
 * huge and malformed numbers, invalid percent-encodings, NUL and lone surrogates.
 */

// ---------------------------------------------------------------------------------------------
// Leaves: names and scalar values

/** Fields of `articles` across every type, relations and their paths, and names that are not fields. */
export const ARTICLE_FIELDS = [
  'id',
  'status',
  'title',
  'body',
  'views',
  'rating',
  'big',
  'featured',
  'published_on',
  'published',
  'created',
  'starts',
  'data',
  'tags',
  'uid',
  'secret',
  'author',
] as const;
const RELATIONAL_PATHS = [
  'author.name',
  'author.country.name',
  'comments.text',
  'comments.author.email',
  'categories.categories_id.name',
  'sections.item:headings.title',
  'sections.item:texts.body',
  'sections.collection',
  'author.articles.title',
] as const;
const FUNCTION_FIELDS = [
  'year(published)',
  'month(created)',
  'hour(starts)',
  'count(comments)',
  'count(data)',
  'weekday(title)',
  'nope(id)',
  'year(',
  'count()',
] as const;
const HOSTILE_NAMES = [
  '',
  '.',
  '..',
  '*',
  '*.*',
  'nope',
  '__proto__',
  'constructor',
  'id;drop table articles',
  '"id"',
  'a.b.c.d.e.f.g.h.i.j.k',
  'title ',
  'TITLE',
] as const;

export const fieldName = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...ARTICLE_FIELDS) },
  { weight: 2, arbitrary: fc.constantFrom(...RELATIONAL_PATHS) },
  { weight: 1, arbitrary: fc.constantFrom(...FUNCTION_FIELDS) },
  { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_NAMES) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
);

/** Text that databases and parsers find hard: NUL, lone surrogates, quotes, wildcards, long runs. */
export const nastyText = fc.oneof(
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udfffy',
    '\udbff\udbff',
    '%',
    '_',
    '\\',
    "'",
    '"',
    '%_\\',
    '\u202e',
    '😀',
    '\uffff',
    ' ',
    '',
  ),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom('a'.repeat(1500), '\u00e9'.repeat(400)),
);

/** Numbers as a query string or JSON writes them: edges of every integer type, huge, fractional, malformed. */
export const nastyNumber = fc.oneof(
  fc.integer({ min: -5, max: 200 }),
  fc.constantFrom(
    0,
    -1,
    2147483647,
    2147483648,
    -2147483649,
    9007199254740991,
    9007199254740993,
    1e21,
    1e308,
    -1e308,
    0.5,
    -0.0,
    '9223372036854775807',
    '9223372036854775808',
    '-9223372036854775809',
    '99999999999999999999999999999999999999999',
    '1e21',
    '1e400',
    '-',
    '+1',
    '0x10',
    '1_000',
    '١٢',
    'NaN',
    'Infinity',
    '1.5',
    ' 7 ',
    '7abc',
    '',
  ),
);

/** Dynamic values (`$NOW`, `$CURRENT_USER`, ...), valid and not. */
export const dynamicValue = fc.constantFrom(
  '$NOW',
  '$NOW(-1 year)',
  '$NOW(+2 hours)',
  '$NOW(nonsense)',
  '$NOW(-99999999999 years)',
  '$CURRENT_USER',
  '$CURRENT_ROLE',
  '$CURRENT_USER.email',
  '$CURRENT_USER.role.name',
  '$CURRENT_USER.nope',
  '$CURRENT_ROLES',
  '$CURRENT_POLICIES',
  '$NOPE',
);

const dateText = fc.constantFrom(
  '2024-01-15',
  '2024-02-30',
  '2024-01-15T10:00:00Z',
  '10000-01-01',
  '0000-00-00',
  '2024-13-01 25:61:61',
  '12:30',
  '99:99',
);
const uuidText = fc.oneof(fc.uuid(), fc.constantFrom('aaaaaaaa-bbbb-4ccc-8ddd-000000000001', 'not-a-uuid'));

export const scalar: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 10 }) },
  { weight: 3, arbitrary: nastyNumber },
  { weight: 2, arbitrary: nastyText },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: dynamicValue },
  { weight: 1, arbitrary: dateText },
  { weight: 1, arbitrary: uuidText },
);

/** Any JSON value, small: what a payload field or filter operand may be given. */
export const jsonValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: scalar },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.oneof(fieldName, fc.string({ maxLength: 5 })), scalar, { maxKeys: 3 }) },
);

// ---------------------------------------------------------------------------------------------
// Query parameters

const operator = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...FILTER_OPERATORS) },
  { weight: 1, arbitrary: fc.constantFrom('_nope', 'eq', '_EQ', '_and', '_some', '_none') },
);

/** A filter tree: field → operator → value, `_and`/`_or`, relations, `_some`/`_none`. */
export const filterTree: fc.Arbitrary<unknown> = fc.letrec<{ filter: unknown }>((tie) => ({
  filter: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    {
      weight: 5,
      arbitrary: fc.tuple(fieldName, operator, jsonValue).map(([field, op, value]) => ({ [field]: { [op]: value } })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom('_and', '_or'), fc.array(tie('filter'), { maxLength: 3 }))
        .map(([group, items]) => ({ [group]: items })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom('author', 'comments', 'categories', 'sections', 'title'),
          fc.constantFrom('', '_some', '_none'),
          tie('filter'),
        )
        .map(([relation, quantifier, inner]) =>
          quantifier === '' ? { [relation]: inner } : { [relation]: { [quantifier]: inner } },
        ),
    },
    { weight: 1, arbitrary: jsonValue },
  ),
})).filter;

const sortList = fc.array(
  fc.tuple(fc.boolean(), fieldName).map(([desc, field]) => (desc ? `-${field}` : field)),
  { maxLength: 3 },
);

/** One query-string parameter: its name (bracket form allowed) and its raw value. */
type Param = readonly [name: string, value: unknown];

const aggregate = fc.dictionary(
  fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...AGGREGATE_FUNCTIONS) },
    { weight: 1, arbitrary: fc.constantFrom('median', '') },
  ),
  fc.oneof(fieldName, fc.constant('*'), fc.array(fieldName, { maxLength: 2 })),
  { maxKeys: 3 },
);

const deep = fc.dictionary(
  fc.constantFrom('comments', 'author', 'categories', 'sections', 'nope', 'title'),
  fc.record(
    { _limit: nastyNumber, _offset: nastyNumber, _sort: sortList, _filter: filterTree, _search: nastyText },
    { requiredKeys: [] },
  ),
  { maxKeys: 2 },
);

/** The global query parameters, each present or not, every one as wild as it gets. */
export const queryParams: fc.Arbitrary<Param[]> = fc
  .record(
    {
      fields: fc.array(fieldName, { maxLength: 4 }),
      filter: filterTree,
      sort: sortList,
      limit: nastyNumber,
      offset: nastyNumber,
      page: nastyNumber,
      search: fc.oneof(fc.string({ maxLength: 10 }), nastyText),
      aggregate,
      groupBy: fc.array(fc.oneof(fieldName, fc.constantFrom('year(published)', 'status', 'author')), { maxLength: 2 }),
      deep,
      alias: fc.dictionary(
        fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('a.b', 'id', '__proto__')),
        fieldName,
        { maxKeys: 2 },
      ),
      meta: fc.constantFrom('*', 'total_count', 'filter_count', 'total_count,filter_count', 'nope', ''),
      export: fc.constantFrom('json', 'csv', 'xml', 'yaml', 'nope', ''),
    },
    { requiredKeys: [] },
  )
  .map((record) => Object.entries(record) as Param[]);

const JSON_PARAMS = new Set(['filter', 'deep', 'alias', 'aggregate']);

/**
 * A query string from parameters: object values as JSON or in bracket form, lists as comma
 * lists or repeated `[]` keys, everything percent-encoded, unless the raw text is wanted.
 */
export function toQueryString(
  params: readonly Param[],
  style: { readonly json: boolean; readonly arrays: boolean },
): string {
  const pairs: string[] = [];
  const add = (key: string, value: unknown) =>
    pairs.push(`${encode(key)}=${encode(value === null ? 'null' : String(value))}`);
  const bracket = (prefix: string, value: unknown): void => {
    if (Array.isArray(value)) value.forEach((item, i) => bracket(`${prefix}[${i}]`, item));
    else if (typeof value === 'object' && value !== null)
      for (const [k, v] of Object.entries(value)) bracket(`${prefix}[${k}]`, v);
    else add(prefix, value);
  };
  for (const [name, value] of params) {
    if (JSON_PARAMS.has(name) && (style.json || typeof value !== 'object')) add(name, JSON.stringify(value));
    else if (Array.isArray(value)) {
      if (style.arrays) for (const item of value) add(`${name}[]`, item);
      else add(name, value.join(','));
    } else bracket(name, value);
  }
  return pairs.join('&');
}

/** encodeURIComponent, which throws on a lone surrogate: such text is sent as its UTF-8 bytes would be (invalid). */
function encode(text: string): string {
  return text.replace(/[^A-Za-z0-9\-_.~]/g, (c) => {
    const code = c.charCodeAt(0);
    if (code >= 0xd800 && code <= 0xdfff)
      return `%${(0xe0 | (code >> 12)).toString(16)}%${(0x80 | ((code >> 6) & 0x3f)).toString(16)}%${(0x80 | (code & 0x3f)).toString(16)}`.toUpperCase();
    return encodeURIComponent(c);
  });
}

/** Raw fragments appended to a query string: percent-encoding that does not decode, repeated and odd keys. */
export const rawQueryNoise = fc.constantFrom(
  '',
  '',
  '',
  '%',
  '%zz',
  'filter=%',
  'search=%ED%A0%80',
  'filter[title][_eq]=%C0%AF',
  'limit=%FF',
  'fields[=id',
  'fields]=id',
  'filter[[]]=1',
  'sort[]=&sort[]=',
  'limit=1&limit=2',
  'deep[comments][_limit][0]=1',
  'a[1001]=1',
  '&&&',
  '=',
  'filter=null',
  'filter[_and]=x',
  'filter[_or][0]=1',
  'meta[]=*',
  'aggregate=%7B',
  'page=0',
  'offset=-1',
  'limit=-2',
);

/** The key part of an item path: existing, missing, out of range, malformed, hostile. */
export const itemKey = fc.oneof(
  { weight: 2, arbitrary: fc.integer({ min: -2, max: 8 }).map(String) },
  { weight: 3, arbitrary: nastyNumber.map((n) => String(n).replace(/[^\x21-\x7e]/g, (c) => encodeURIComponent(c))) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '%',
      '%ff',
      '%ED%A0%80',
      'abc',
      '1.5',
      '%00',
      '..',
      '%2e%2e',
      'aaaaaaaa-bbbb-4ccc-8ddd-000000000001',
      "1'or'1'='1",
    ),
  },
);

/** The query string of an asset: transformation parameters, `download`, keys of presets. */
export const assetParams = fc
  .record(
    {
      width: nastyNumber,
      height: nastyNumber,
      quality: nastyNumber,
      fit: fc.constantFrom('cover', 'contain', 'inside', 'outside', 'nope'),
      format: fc.constantFrom('jpg', 'png', 'webp', 'avif', 'tiff', 'auto', 'gif', 'nope'),
      transforms: fc.oneof(
        fc.constant('[["blur",10]]'),
        fc.constant('[['),
        jsonValue.map((v) => JSON.stringify(v) ?? ''),
      ),
      key: fc.string({ maxLength: 8 }),
      download: fc.constantFrom('', '1'),
    },
    { requiredKeys: [] },
  )
  .map((record) => toQueryString(Object.entries(record), { json: false, arrays: false }));

/** Range headers, satisfiable or not, and malformed. */
export const rangeHeader = fc.oneof(
  // Header values are latin1 text: anything else never leaves the client.
  fc.tuple(nastyNumber, nastyNumber).map(([a, b]) => `bytes=${String(a)}-${String(b)}`.replace(/[^\x20-\x7e]/g, '?')),
  fc.constantFrom(
    'bytes=0-',
    'bytes=-3',
    'bytes=5-2',
    'bytes=0-0,2-3',
    'bytes=-',
    'items=0-1',
    'bytes=99999999999999999999-',
    'bytes= 1-2',
    '',
  ),
);

// ---------------------------------------------------------------------------------------------
// Bodies

/** An item payload for `articles`/`comments`: known and unknown fields, values of any type. */
export const itemPayload = fc.dictionary(
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...ARTICLE_FIELDS, 'text', 'article', 'sort', 'comments', 'categories') },
    { weight: 1, arbitrary: fieldName },
  ),
  fc.oneof(
    { weight: 5, arbitrary: jsonValue },
    { weight: 1, arbitrary: fc.constant({ create: [{ text: 'x' }], update: [], delete: [1] }) },
  ),
  { maxKeys: 5 },
);

/**
 * A multipart/form-data body for POST /files and its boundary: text fields and file parts,
 * cut anywhere, with broken part headers now and then.
 */
export const multipartBody = fc
  .tuple(
    fc.array(
      fc.oneof(
        fc
          .tuple(fc.constantFrom('title', 'folder', 'id', 'storage', 'nope', 'filename_disk'), jsonValue)
          .map(
            ([name, value]) =>
              `Content-Disposition: form-data; name="${name}"\r\n\r\n${typeof value === 'string' ? value : JSON.stringify(value)}`,
          ),
        fc
          .tuple(
            fc.constantFrom('a.txt', 'b.png', '../../etc/passwd', '', 'x"y'),
            fc.constantFrom('text/plain', 'image/png', 'application/x-evil', ''),
            fc.string({ maxLength: 40 }),
          )
          .map(
            ([filename, type, content]) =>
              `Content-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n${content}`,
          ),
        fc.constantFrom('Content-Disposition: nonsense\r\n\r\nx', 'no headers at all', '\r\n\r\n'),
      ),
      { minLength: 1, maxLength: 3 },
    ),
    fc.constantFrom('XyZ', 'a'.repeat(70), '--', ' '),
    fc.option(fc.nat(), { nil: undefined }),
  )
  .map(([parts, boundary, cut]) => {
    const body = parts.map((part) => `--${boundary}\r\n${part}\r\n`).join('') + `--${boundary}--\r\n`;
    return { boundary, body: cut === undefined ? body : body.slice(0, cut % (body.length + 1)) };
  });

/** Deeply nested JSON as text (a parser's stack, not ours, should give up). */
const deepJson = fc.integer({ min: 50, max: 5000 }).map((depth) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth));

/**
 * A request body as text: JSON of payloads, arrays of them, a `keys`/`query` body, scalars,
 * giant arrays, deep nesting, and text that is not JSON at all.
 */
export const jsonBodyText: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: itemPayload.map((p) => JSON.stringify(p)) },
  { weight: 2, arbitrary: fc.array(itemPayload, { maxLength: 3 }).map((p) => JSON.stringify(p)) },
  {
    weight: 2,
    arbitrary: fc
      .record(
        {
          keys: fc.array(fc.oneof(nastyNumber, itemKey), { maxLength: 3 }),
          data: itemPayload,
          query: fc.record({ filter: filterTree, limit: nastyNumber }, { requiredKeys: [] }),
        },
        { requiredKeys: [] },
      )
      .map((b) => JSON.stringify(b)),
  },
  { weight: 1, arbitrary: jsonValue.map((v) => JSON.stringify(v) ?? 'null') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      JSON.stringify(Array.from({ length: 20_000 }, (_, i) => i)),
      JSON.stringify(Array.from({ length: 3000 }, () => ({ title: 'x' }))),
    ),
  },
  { weight: 1, arbitrary: deepJson },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      '{',
      '[1,',
      '{"a":1}garbage',
      '"\\ud800"',
      '{"title":"\\u0000"}',
      '{"__proto__":{"admin":true}}',
      'null',
      '\u0000',
      '{"a":1,"a":2}',
      '\ufeff{}',
    ),
  },
);

// ---------------------------------------------------------------------------------------------
// GraphQL

const gqlString = (text: string) => JSON.stringify(text);
const gqlField = fc.constantFrom(
  'id',
  'title',
  'views',
  'status',
  'published',
  'data',
  'nope',
  'author { name }',
  'comments { text }',
  'author { nope }',
  'id(x: 1)',
  '__typename',
);

/** A GraphQL input literal for a JSON value (objects become input objects). */
function gqlLiteral(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `[${value.map(gqlLiteral).join(', ')}]`;
  if (typeof value === 'object')
    return `{ ${Object.entries(value)
      .map(([k, v]) => `${/^[_A-Za-z][_0-9A-Za-z]*$/.test(k) ? k : 'x'}: ${gqlLiteral(v)}`)
      .join(', ')} }`;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '0';
  if (typeof value === 'boolean') return String(value);
  return gqlString(String(value));
}

const gqlArgs = fc
  .record(
    {
      filter: filterTree,
      sort: sortList,
      limit: nastyNumber,
      offset: nastyNumber,
      page: nastyNumber,
      search: nastyText,
    },
    { requiredKeys: [] },
  )
  .map((args) => {
    const entries = Object.entries(args).map(
      ([k, v]) =>
        `${k}: ${gqlLiteral(k === 'limit' || k === 'offset' || k === 'page' ? (typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v) : v)}`,
    );
    return entries.length === 0 ? '' : `(${entries.join(', ')})`;
  });

/** GraphQL documents over the fixture: reads, aggregates, by-key reads, single mutations, and broken text. */
export const graphqlDocument: fc.Arbitrary<{ readonly query: string; readonly isMutation: boolean }> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(gqlArgs, fc.array(gqlField, { minLength: 1, maxLength: 3 }))
      .map(([args, fields]) => ({ query: `{ articles${args} { ${fields.join(' ')} } }`, isMutation: false })),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.array(fc.constantFrom('status', 'author', 'nope'), { maxLength: 2 }),
        fc.constantFrom(...AGGREGATE_FUNCTIONS),
        fc.constantFrom('id', 'views', 'title', 'rating', 'published', 'data', 'featured'),
      )
      .map(([groupBy, fn, field]) => ({
        query: `{ articles_aggregated${groupBy.length === 0 ? '' : `(groupBy: ${gqlLiteral(groupBy)})`} { group ${fn} { ${field} } } }`,
        isMutation: false,
      })),
  },
  {
    weight: 1,
    arbitrary: itemKey.map((key) => ({
      query: `{ articles_by_id(id: ${gqlString(key)}) { id title } }`,
      isMutation: false,
    })),
  },
  {
    weight: 2,
    arbitrary: itemPayload.map((data) => ({
      query: `mutation { create_comments_item(data: ${gqlLiteral(data)}) { id } }`,
      isMutation: true,
    })),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(itemKey, itemPayload).map(([key, data]) => ({
      query: `mutation { update_articles_item(id: ${gqlString(key)}, data: ${gqlLiteral(data)}) { id } }`,
      isMutation: true,
    })),
  },
  {
    weight: 1,
    arbitrary: itemKey.map((key) => ({
      query: `mutation { delete_comments_item(id: ${gqlString(key)}) { id } }`,
      isMutation: true,
    })),
  },
  {
    weight: 1,
    arbitrary: fc
      .oneof(
        fc.string({ maxLength: 30 }),
        fc.constantFrom(
          '{',
          '{ articles { ',
          'query ($a: Int!) { articles(limit: $a) { id } }',
          'subscription { x }',
          '{ __schema { types { name } } }',
          '{ a: articles { id } a: articles { title } }',
          '#',
        ),
      )
      .map((query) => ({ query, isMutation: false })),
  },
);

/** Variables as a client may send them: an object of anything, or not an object at all. */
export const graphqlVariables = fc.oneof(
  fc.constant(undefined),
  fc.dictionary(fc.constantFrom('a', 'id', 'filter'), jsonValue, { maxKeys: 2 }),
  jsonValue,
);

// ---------------------------------------------------------------------------------------------
// Auth and utils

const email = fc.oneof(
  fc.emailAddress(),
  nastyText,
  fc.constantFrom('fuzz@example.com', 'FUZZ@EXAMPLE.COM', 'a@b', '@', ''),
);

/** Bodies of the public auth routes, well-formed or not. */
export const authRequest: fc.Arbitrary<{ readonly path: string; readonly body: unknown }> = fc.oneof(
  fc
    .record(
      {
        email,
        password: fc.oneof(fc.string({ maxLength: 12 }), nastyText, jsonValue),
        otp: fc.oneof(fc.string({ maxLength: 8 }), jsonValue),
        mode: fc.constantFrom('json', 'cookie', 'session', 'nope', 1),
      },
      { requiredKeys: [] },
    )
    .map((body) => ({ path: '/auth/login', body })),
  fc
    .record(
      {
        refresh_token: fc.oneof(fc.string({ maxLength: 40 }), nastyText, jsonValue),
        mode: fc.constantFrom('json', 'cookie', 'session', 'nope'),
      },
      { requiredKeys: [] },
    )
    .map((body) => ({ path: '/auth/refresh', body })),
  fc
    .record({ refresh_token: fc.oneof(fc.string({ maxLength: 40 }), jsonValue) }, { requiredKeys: [] })
    .map((body) => ({ path: '/auth/logout', body })),
  fc
    .record(
      {
        token: fc.oneof(fc.string({ maxLength: 40 }), jsonValue),
        password: fc.oneof(fc.string({ maxLength: 12 }), jsonValue),
      },
      { requiredKeys: [] },
    )
    .map((body) => ({ path: '/auth/password/reset', body })),
  jsonValue.map((body) => ({ path: '/auth/login', body })),
);

/** Utils requests: hashing, random strings, sort and revert, with any body. */
export const utilsRequest: fc.Arbitrary<{ readonly method: string; readonly path: string; readonly body: unknown }> =
  fc.oneof(
    fc
      .record({ string: fc.oneof(fc.string({ maxLength: 20 }), nastyText, jsonValue) }, { requiredKeys: [] })
      .map((body) => ({ method: 'POST', path: '/utils/hash/generate', body })),
    fc
      .record(
        {
          string: fc.oneof(fc.string({ maxLength: 20 }), jsonValue),
          hash: fc.oneof(
            fc.string({ maxLength: 20 }),
            fc.constant('$argon2id$v=19$m=65536,t=3,p=4$AAAA$AAAA'),
            jsonValue,
          ),
        },
        { requiredKeys: [] },
      )
      .map((body) => ({ method: 'POST', path: '/utils/hash/verify', body })),
    nastyNumber.map((length) => ({
      method: 'GET',
      path: `/utils/random/string?length=${encodeURIComponent(String(length))}`,
      body: undefined,
    })),
    fc
      .tuple(
        fc.constantFrom('comments', 'articles', 'nope', 'svc_users'),
        fc.record({ item: fc.oneof(itemKey, jsonValue), to: fc.oneof(itemKey, jsonValue) }, { requiredKeys: [] }),
      )
      .map(([collection, body]) => ({ method: 'POST', path: `/utils/sort/${collection}`, body })),
    itemKey.map((key) => ({ method: 'POST', path: `/utils/revert/${key}`, body: undefined })),
  );
