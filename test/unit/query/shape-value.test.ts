import { expect } from 'chai';
import type { FieldType } from '../../../catalog/overview/types.js';
import { shapeValue, MASK } from '../../../src/query/shape/shape-value.js';

/** What each driver hands over for the same stored value, and the one API value expected. */
const cases: readonly {
  readonly type: FieldType;
  readonly raws: readonly unknown[];
  readonly expected: unknown;
  readonly scale?: number;
}[] = [
  { type: 'integer', raws: [5, '5', 5n], expected: 5 },
  { type: 'bigInteger', raws: ['9007199254740993'], expected: '9007199254740993' },
  { type: 'bigInteger', raws: [2, '2'], expected: '2' },
  { type: 'float', raws: [1.5, '1.5'], expected: 1.5 },
  { type: 'decimal', raws: ['12.50', '12.5', 12.5], expected: '12.50', scale: 2 },
  { type: 'decimal', raws: ['12'], expected: '12.00', scale: 2 },
  { type: 'boolean', raws: [true, 1, '1', 't', 'true'], expected: true },
  { type: 'boolean', raws: [false, 0, '0', 'f', 'false'], expected: false },
  {
    type: 'date',
    raws: ['2024-01-15', '2024-01-15 00:00:00', new Date('2024-01-15T00:00:00Z')],
    expected: '2024-01-15',
  },
  { type: 'time', raws: ['08:30:00'], expected: '08:30:00' },
  {
    type: 'dateTime',
    raws: ['2024-01-15 10:00:00', '2024-01-15T10:00:00', '2024-01-15 10:00:00.000', new Date('2024-01-15T10:00:00Z')],
    expected: '2024-01-15T10:00:00',
  },
  { type: 'dateTime', raws: ['2024-01-15 10:00:00.123456'], expected: '2024-01-15T10:00:00.123' },
  {
    type: 'timestamp',
    raws: [
      '2024-01-15 10:00:00+00',
      '2024-01-15 12:00:00+02:00',
      '2024-01-15 10:00:00',
      '2024-01-15T10:00:00Z',
      Date.UTC(2024, 0, 15, 10),
      new Date('2024-01-15T10:00:00Z'),
    ],
    expected: '2024-01-15T10:00:00.000Z',
  },
  { type: 'json', raws: ['{"a":[1,2]}', { a: [1, 2] }], expected: { a: [1, 2] } },
  { type: 'json', raws: ['"text"'], expected: 'text' },
  { type: 'csv', raws: ['red,green', ['red', 'green']], expected: ['red', 'green'] },
  { type: 'csv', raws: [''], expected: [] },
  { type: 'hash', raws: ['$argon2id$v=19$...'], expected: MASK },
  { type: 'uuid', raws: ['aaaaaaaa-bbbb-4ccc-8ddd-000000000001'], expected: 'aaaaaaaa-bbbb-4ccc-8ddd-000000000001' },
  { type: 'string', raws: ['x', 'x'], expected: 'x' },
];

describe('shapeValue: one API value per field type, whatever the driver gave', () => {
  for (const c of cases) {
    for (const raw of c.raws) {
      it(`${c.type}: ${typeof raw === 'object' ? JSON.stringify(raw) : String(raw)} → ${JSON.stringify(c.expected)}`, () => {
        expect(shapeValue(c.type, raw, { scale: c.scale ?? null })).to.deep.equal(c.expected);
      });
    }
  }

  it('keeps null as null, also for masked fields', () => {
    expect(shapeValue('hash', null)).to.equal(null);
    expect(shapeValue('string', null, { masked: true })).to.equal(null);
    expect(shapeValue('string', 'static-token', { masked: true })).to.equal(MASK);
  });
});

describe('shapeValue: timestamps and dateTimes read from UTC text without a Date', () => {
  /** What the Date path makes of `text` (UTC when no zone), the reference for every form. */
  const viaDate = (text: string): Date => new Date(`${text.replace(' ', 'T').replace(/\+00(:?00)?$/, '')}Z`);
  const days = [
    '2024-01-15',
    '2024-02-29',
    '2023-02-29',
    '2024-04-31',
    '2024-12-31',
    '0000-02-29',
    '1900-02-29',
    '9999-12-31',
  ];
  const times = ['00:00:00', '23:59:59', '10:20:30.5', '10:20:30.123456', '10:20:30.000900', '24:00:00', '12:60:00'];
  const zones = ['', '+00', '+00:00', 'Z'];
  for (const day of days) {
    for (const time of times) {
      for (const zone of zones) {
        const text = `${day} ${time}${zone}`;
        it(`${text}`, () => {
          const instant = viaDate(`${day} ${time}`);
          const expectedTimestamp = Number.isNaN(instant.getTime()) ? text : instant.toISOString();
          expect(shapeValue('timestamp', text)).to.equal(expectedTimestamp);
          if (zone !== '') return;
          const iso = Number.isNaN(instant.getTime()) ? undefined : instant.toISOString();
          const expectedDateTime =
            iso === undefined ? text : instant.getUTCMilliseconds() === 0 ? iso.slice(0, 19) : iso.slice(0, 23);
          expect(shapeValue('dateTime', text)).to.equal(expectedDateTime);
        });
      }
    }
  }
});
