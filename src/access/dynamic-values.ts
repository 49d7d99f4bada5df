import { isPlainObject } from '../is-plain-object.js';
/** The values `$CURRENT_USER`, `$CURRENT_ROLE` and `$NOW` stand for in one request. */
export interface DynamicContext {
  readonly user: string | null;
  readonly role: string | null;
  readonly now: Date;
  /** `$CURRENT_USER.<path>` values by path (`role.name`), loaded beforehand. */
  readonly userValues: ReadonlyMap<string, unknown>;
  /** `$CURRENT_ROLE.<path>` values by path. */
  readonly roleValues: ReadonlyMap<string, unknown>;
}

/** The `.path`s a value refers to, per variable: what must be loaded before resolving. */
export interface DynamicPaths {
  readonly user: ReadonlySet<string>;
  readonly role: ReadonlySet<string>;
}

const VARIABLE = /^\$(CURRENT_USER|CURRENT_ROLE)(?:\.([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*))?$/;
const NOW = /^\$NOW(?:\((.*)\))?$/;

const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  millisecond: 1,
  milliseconds: 1,
  s: 1000,
  sec: 1000,
  secs: 1000,
  second: 1000,
  seconds: 1000,
  m: 60_000,
  min: 60_000,
  mins: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hr: 3_600_000,
  hrs: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
  w: 604_800_000,
  week: 604_800_000,
  weeks: 604_800_000,
};
const CALENDAR_UNITS: Readonly<Record<string, 'month' | 'year'>> = {
  mo: 'month',
  month: 'month',
  months: 'month',
  y: 'year',
  yr: 'year',
  yrs: 'year',
  year: 'year',
  years: 'year',
};

/** A dynamic variable (`$NOW`, `$CURRENT_USER`, ...), parsed. */
export type DynamicValue =
  | { readonly kind: 'now'; /** `-1 year` of `$NOW(-1 year)`. */ readonly adjustment: string | undefined }
  | {
      readonly kind: 'user' | 'role';
      /** `role.name` of `$CURRENT_USER.role.name`. */ readonly path: string | undefined;
    };

/**
 * The one reader of `$NOW`, `$NOW(<adjustment>)`, `$CURRENT_USER[.path]` and
 * `$CURRENT_ROLE[.path]` (paths of field names: letters, digits, `_`), for permissions and
 * queries alike; undefined for any other text.
 */
export function parseDynamicValue(text: string): DynamicValue | undefined {
  const now = NOW.exec(text);
  if (now !== null) return { kind: 'now', adjustment: now[1] };
  const variable = VARIABLE.exec(text);
  if (variable === null) return undefined;
  return { kind: variable[1] === 'CURRENT_USER' ? 'user' : 'role', path: variable[2] };
}

/** True for a string that is one of Directus 10's dynamic variables. */
export function isDynamicValue(value: unknown): value is string {
  return typeof value === 'string' && parseDynamicValue(value) !== undefined;
}

/**
 * True for a string that claims to be a dynamic variable, well formed or not (`$NOW(soon)`,
 * `$CURRENT_USER.no field`): a query reads it with parseDynamicValue and refuses it when
 * malformed, never compares it as text.
 */
export function claimsDynamicValue(value: unknown): value is string {
  return typeof value === 'string' && /^\$(NOW|CURRENT_USER|CURRENT_ROLE)\b/.test(value);
}

/**
 * `$NOW(<adjustment>)` → the shifted moment: `-1 year`, `+2 hours`, `-7 days`, `3 weeks`
 * (sign required for the past; years and months move the calendar).
 * Undefined when the adjustment cannot be read.
 */
export function adjustNow(now: Date, adjustment: string): Date | undefined {
  const match = /^\s*([+-]?)\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]+)\s*$/.exec(adjustment);
  const unit = match?.[3]?.toLowerCase();
  if (match === null || unit === undefined) return undefined;
  const amount = Number(match[2]) * (match[1] === '-' ? -1 : 1);
  const calendar = CALENDAR_UNITS[unit];
  if (calendar !== undefined) return addMonths(now, Math.trunc(amount) * (calendar === 'year' ? 12 : 1));
  const ms = UNIT_MS[unit];
  return ms === undefined ? undefined : new Date(now.getTime() + amount * ms);
}

/** Calendar months in UTC; the day is clamped, so a month back from 31 March is 29 February. */
function addMonths(date: Date, months: number): Date {
  const target = new Date(date.getTime());
  target.setUTCDate(1);
  target.setUTCMonth(target.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(date.getUTCDate(), lastDay));
  return target;
}

/**
 * A copy of `value` (a filter, a validation or presets) with every dynamic variable replaced:
 * `$CURRENT_USER`/`$CURRENT_ROLE` by the ids
 * (null for public), their `.path` forms by the loaded values, `$NOW` and `$NOW(...)` by an
 * ISO 8601 timestamp. Keys and other strings stay as they are. A variable that cannot be
 * resolved is a misconfigured permission, and throws rather than matching anything.
 */
export function resolveDynamicValues<T>(value: T, context: DynamicContext): T {
  return resolve(value, context) as T;
}

function resolve(value: unknown, context: DynamicContext): unknown {
  if (typeof value === 'string') {
    const variable = parseDynamicValue(value);
    return variable === undefined ? value : resolveVariable(variable, value, context);
  }
  if (Array.isArray(value)) return value.map((item) => resolve(item, context));
  if (isPlainObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolve(item, context)]));
  }
  return value;
}

function resolveVariable(variable: DynamicValue, text: string, context: DynamicContext): unknown {
  if (variable.kind === 'now') {
    const date = variable.adjustment === undefined ? context.now : adjustNow(context.now, variable.adjustment);
    if (date === undefined) throw new Error(`Permission uses an invalid dynamic variable "${text}"`);
    return date.toISOString();
  }
  const { path } = variable;
  const isUser = variable.kind === 'user';
  if (path === undefined) return isUser ? context.user : context.role;
  const values = isUser ? context.userValues : context.roleValues;
  if (!values.has(path)) throw new Error(`Permission uses "${text}", which was not loaded`);
  return values.get(path);
}

/** Every `$CURRENT_USER.<path>` and `$CURRENT_ROLE.<path>` inside `value`. */
export function collectDynamicPaths(value: unknown): DynamicPaths {
  const user = new Set<string>();
  const role = new Set<string>();
  const visit = (item: unknown): void => {
    if (typeof item === 'string') {
      const variable = parseDynamicValue(item);
      if (variable !== undefined && variable.kind !== 'now' && variable.path !== undefined) {
        (variable.kind === 'user' ? user : role).add(variable.path);
      }
    } else if (Array.isArray(item)) item.forEach(visit);
    else if (isPlainObject(item)) Object.values(item).forEach(visit);
  };
  visit(value);
  return { user, role };
}
