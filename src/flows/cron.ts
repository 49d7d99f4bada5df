/**
 * A cron expression as Directus's schedule trigger takes it: five fields (minute hour
 * day-of-month month day-of-week) or six with seconds first; each `*`, a number, a range
 * `a-b`, a step `*\/n` or `a-b/n`, or a comma list of those. Day of week 0-7 (0 and 7: Sunday).
 * When both day fields are restricted, either matching is enough (as cron has it). Times are UTC.
 */
export class CronExpression {
  readonly #fields: readonly ReadonlySet<number>[];
  readonly #isDayOfMonthAny: boolean;
  readonly #isDayOfWeekAny: boolean;

  private constructor(fields: readonly ReadonlySet<number>[], dayOfMonthAny: boolean, dayOfWeekAny: boolean) {
    this.#fields = fields;
    this.#isDayOfMonthAny = dayOfMonthAny;
    this.#isDayOfWeekAny = dayOfWeekAny;
  }

  /** The expression, or undefined when it is not one. */
  static parse(text: string): CronExpression | undefined {
    const parts = text.trim().split(/\s+/);
    if (parts.length === 5) parts.unshift('0');
    if (parts.length !== 6) return undefined;
    const fields: Set<number>[] = [];
    for (const [index, part] of parts.entries()) {
      const [min, max] = RANGES[index] ?? [0, 0];
      const values = parseField(part, min, max);
      if (values === undefined) return undefined;
      fields.push(values);
    }
    const dayOfWeek = fields[5];
    if (dayOfWeek?.delete(7) === true) dayOfWeek.add(0);
    return new CronExpression(fields, parts[3] === '*', parts[5] === '*');
  }

  /** Whether the second that starts at `date` (UTC) is one of the expression's. */
  matches(date: Date): boolean {
    const [second, minute, hour, dayOfMonth, month, dayOfWeek] = this.#fields as [
      ReadonlySet<number>,
      ReadonlySet<number>,
      ReadonlySet<number>,
      ReadonlySet<number>,
      ReadonlySet<number>,
      ReadonlySet<number>,
    ];
    if (!second.has(date.getUTCSeconds()) || !minute.has(date.getUTCMinutes()) || !hour.has(date.getUTCHours())) {
      return false;
    }
    if (!month.has(date.getUTCMonth() + 1)) return false;
    const isDomMatch = dayOfMonth.has(date.getUTCDate());
    const isDowMatch = dayOfWeek.has(date.getUTCDay());
    if (this.#isDayOfMonthAny || this.#isDayOfWeekAny) return isDomMatch && isDowMatch;
    return isDomMatch || isDowMatch;
  }
}

const RANGES: readonly (readonly [number, number])[] = [
  [0, 59],
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12],
  [0, 7],
];

function parseField(text: string, min: number, max: number): Set<number> | undefined {
  const values = new Set<number>();
  for (const item of text.split(',')) {
    const match = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(item);
    if (match === null) return undefined;
    const [, , from, to, stepText] = match;
    const start = from === undefined ? min : Number(from);
    const end = from === undefined ? max : to === undefined ? (stepText === undefined ? start : max) : Number(to);
    const step = stepText === undefined ? 1 : Number(stepText);
    if (start < min || end > max || start > end || step < 1) return undefined;
    for (let value = start; value <= end; value += step) values.add(value);
  }
  return values;
}
