import type { SchemaOverview } from '../../../catalog/overview/types.js';
import { findField, getFieldRelation } from '../../../catalog/overview/lookup.js';
import { InvalidQueryError } from '../../errors.js';
import type { BuildContext } from './build-context.js';
import type { LookupStep, Value } from './nodes.js';

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

export function isDynamicValue(value: unknown): value is string {
  return typeof value === 'string' && /^\$(NOW|CURRENT_USER|CURRENT_ROLE)\b/.test(value);
}

/**
 * reference/query.md, dynamic variables: `$NOW`, `$NOW(<adjustment>)`, `$CURRENT_USER[.path]`,
 * `$CURRENT_ROLE[.path]`. Paths are looked up in the same statement (no extra round trip).
 */
export function resolveDynamicValue(ctx: BuildContext, text: string): Value {
  const now = /^\$NOW(?:\((.*)\))?$/.exec(text);
  if (now !== null) {
    const adjustment = now[1];
    const date = adjustment === undefined ? ctx.now : adjustDate(ctx.now, adjustment, text);
    return { kind: 'literal', value: date, type: 'timestamp' };
  }
  const variable = /^\$(CURRENT_USER|CURRENT_ROLE)(?:\.(.+))?$/.exec(text);
  if (variable === null) throw new InvalidQueryError(`Invalid dynamic variable "${text}"`);
  const isUser = variable[1] === 'CURRENT_USER';
  const key = isUser ? ctx.accountability.user : ctx.accountability.role;
  const collection = isUser ? 'svc_users' : 'svc_roles';
  const path = variable[2];
  if (path === undefined) return { kind: 'literal', value: key, type: 'uuid' };
  const steps = lookupSteps(ctx.overview, collection, path.split('.'), text);
  if (key === null) return { kind: 'literal', value: null, type: 'unknown' };
  return { kind: 'lookup', key, steps };
}

function adjustDate(now: Date, adjustment: string, text: string): Date {
  const match = /^\s*([+-]?)\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]+)\s*$/.exec(adjustment);
  const unit = match?.[3]?.toLowerCase();
  if (match === null || unit === undefined) throw new InvalidQueryError(`Invalid dynamic variable "${text}"`);
  const amount = Number(match[2]) * (match[1] === '-' ? -1 : 1);
  const calendar = CALENDAR_UNITS[unit];
  const date = new Date(now.getTime());
  if (calendar === 'year') date.setUTCFullYear(date.getUTCFullYear() + Math.trunc(amount));
  else if (calendar === 'month') date.setUTCMonth(date.getUTCMonth() + Math.trunc(amount));
  else {
    const ms = UNIT_MS[unit];
    if (ms === undefined) throw new InvalidQueryError(`Invalid dynamic variable "${text}"`);
    date.setTime(date.getTime() + amount * ms);
  }
  return date;
}

/** `role.name` from svc_users: [{svc_users, id, role}, {svc_roles, id, name}]. */
function lookupSteps(overview: SchemaOverview, start: string, path: readonly string[], text: string): LookupStep[] {
  const steps: LookupStep[] = [];
  let collection = start;
  path.forEach((segment, i) => {
    const field = findField(overview, collection, segment);
    const primary = overview.collections[collection]?.primary;
    if (field === undefined || primary === undefined || field.isAlias) {
      throw new InvalidQueryError(`Invalid dynamic variable "${text}"`);
    }
    steps.push({ collection, keyColumn: primary, column: segment });
    if (i < path.length - 1) {
      const relation = getFieldRelation(overview, collection, segment);
      if (relation?.kind !== 'm2o') throw new InvalidQueryError(`Invalid dynamic variable "${text}"`);
      collection = relation.related;
    }
  });
  return steps;
}
