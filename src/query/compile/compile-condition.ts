import type { FieldType } from '../../../catalog/overview/types.js';
import { findUnstorableText } from '../../db/storable-text.js';
import { assertNever, InvalidQueryError } from '../../errors.js';
import type { Condition, Operand, RelationRef, Value } from '../ast/nodes.js';
import { LONG_LIST, type Emit, type SqlWriter } from '../../db/dialects/read.js';

/** Hands out table aliases unique within one statement. */
export class AliasCounter {
  #next = 0;
  next(prefix: string): string {
    this.#next += 1;
    return `${prefix}${this.#next}`;
  }
}

/** A WHERE/ON condition evaluated against the row of table `alias`. */
export function writeCondition(w: SqlWriter, aliases: AliasCounter, alias: string, c: Condition): void {
  switch (c.kind) {
    case 'and':
    case 'or':
      w.raw('(')
        .join(c.items, ` ${c.kind} `, (item) => {
          writeCondition(w, aliases, alias, item);
        })
        .raw(')');
      return;
    case 'constant':
      w.raw(c.value ? '1 = 1' : '1 = 0');
      return;
    case 'compare':
      writeCompared(w, aliases, alias, c.operand);
      w.raw(` ${c.op} `);
      writeComparedValue(w, aliases, c.operand, c.value);
      return;
    case 'in': {
      const rounds = roundsValues(w, c.operand);
      const literals = c.values.length > LONG_LIST && !rounds ? literalsOf(c.values) : undefined;
      if (literals !== undefined) {
        const values = literals.map((v) => w.dialect.bind(v.value, v.type));
        // The list goes as one value (SQLite: JSON text, where a lone surrogate is an escape
        // execute.ts's check of bound values can't see): its texts are checked here, as a
        // short list's are there.
        const reason = findUnstorableText(w.dialect.client, values);
        if (reason !== undefined) throw new InvalidQueryError(reason);
        const operand: Emit = () => {
          writeCompared(w, aliases, alias, c.operand);
        };
        w.dialect.inLongList(w, operand, values, c.negated);
        return;
      }
      writeCompared(w, aliases, alias, c.operand);
      w.raw(c.negated ? ' not in (' : ' in (')
        .join(c.values, ', ', (v) => {
          writeComparedValue(w, aliases, c.operand, v);
        })
        .raw(')');
      return;
    }
    case 'between':
      writeCompared(w, aliases, alias, c.operand);
      w.raw(c.negated ? ' not between ' : ' between ');
      writeComparedValue(w, aliases, c.operand, c.low);
      w.raw(' and ');
      writeComparedValue(w, aliases, c.operand, c.high);
      return;
    case 'null':
      writeOperand(w, aliases, alias, c.operand);
      w.raw(c.negated ? ' is not null' : ' is null');
      return;
    case 'empty': {
      const operand: Emit = () => {
        writeOperand(w, aliases, alias, c.operand);
      };
      if (!c.isText) {
        operand(w);
        w.raw(c.negated ? ' is not null' : ' is null');
        return;
      }
      w.raw('(');
      operand(w);
      w.raw(c.negated ? ' is not null and ' : ' is null or ');
      operand(w);
      w.raw(c.negated ? " <> '')" : " = '')");
      return;
    }
    case 'match':
      negate(w, c.negated, () => {
        w.dialect.match(
          w,
          () => {
            writeOperand(w, aliases, alias, c.operand);
          },
          c.mode,
          c.caseInsensitive,
          c.text,
        );
      });
      return;
    case 'csvContains': {
      // On csv, _contains means "one element equals".
      const wrapped: Emit = () => {
        w.dialect.concat(w, [
          () => w.raw("','"),
          () => {
            writeOperand(w, aliases, alias, c.operand);
          },
          () => w.raw("','"),
        ]);
      };
      negate(w, c.negated, () => {
        w.dialect.match(w, wrapped, 'contains', false, `,${c.element},`);
      });
      return;
    }
    case 'geo':
      negate(w, c.negated, () => {
        w.dialect.geoIntersects(
          w,
          () => {
            writeOperand(w, aliases, alias, c.operand);
          },
          c.mode,
          c.geojson,
        );
      });
      return;
    case 'related': {
      const target = aliases.next('t');
      w.raw(c.negated ? 'not exists (select 1 from ' : 'exists (select 1 from ').id(c.relation.target.collection);
      w.raw(' as ').id(target).raw(' where ');
      writeJoin(w, alias, target, c.relation);
      if (!(c.condition.kind === 'constant' && c.condition.value)) {
        w.raw(' and ');
        writeCondition(w, aliases, target, c.condition);
      }
      w.raw(')');
      return;
    }
    case 'keyIn': {
      const target = aliases.next('t');
      writeOperand(w, aliases, alias, c.operand);
      w.raw(' in (select ');
      w.dialect.asText(w, () => w.column(target, c.target.primary));
      w.raw(' from ').id(c.target.collection).raw(' as ').id(target);
      if (c.condition !== null) {
        w.raw(' where ');
        writeCondition(w, aliases, target, c.condition);
      }
      w.raw(')');
      return;
    }
    default:
      assertNever(c);
  }
}

/** The values when every one is a literal (no `$CURRENT_USER.<path>` lookup). */
function literalsOf(values: readonly Value[]): (Value & { kind: 'literal' })[] | undefined {
  const literals = values.filter((v): v is Value & { kind: 'literal' } => v.kind === 'literal');
  return literals.length === values.length ? literals : undefined;
}

/** Whether values compared with `operand` go through Dialect.singleFloat (MariaDB's 4-byte floats). */
function roundsValues(w: SqlWriter, operand: Operand): boolean {
  return operand.kind === 'column' && operand.singleFloat === true && w.dialect.singleFloat !== undefined;
}

/** A value compared with `operand`: rounded to a 4-byte float column's precision where the dialect must. */
function writeComparedValue(w: SqlWriter, aliases: AliasCounter, operand: Operand, value: Value): void {
  const round = roundsValues(w, operand) ? w.dialect.singleFloat : undefined;
  if (round === undefined) writeValue(w, aliases, value);
  else
    round(w, () => {
      writeValue(w, aliases, value);
    });
}

/** An operand compared with bound values: a column in the form the dialect compares it. */
function writeCompared(w: SqlWriter, aliases: AliasCounter, alias: string, operand: Operand): void {
  if (operand.kind === 'column') w.dialect.compareColumn(w, () => w.column(alias, operand.column), operand.type);
  else writeOperand(w, aliases, alias, operand);
}

/** ` and <condition>` after a WHERE that already has a term; nothing for null. */
function writeAnd(w: SqlWriter, aliases: AliasCounter, alias: string, condition: Condition | null): void {
  if (condition === null) return;
  w.raw(' and ');
  writeCondition(w, aliases, alias, condition);
}

function negate(w: SqlWriter, negated: boolean, body: () => void): void {
  if (negated) w.raw('not (');
  body();
  if (negated) w.raw(')');
}

/**
 * The join condition between the row of `parent` and the related row `target` (the ON of a
 * relation, written into a WHERE).
 */
export function writeJoin(w: SqlWriter, parent: string, target: string, relation: RelationRef): void {
  switch (relation.kind) {
    case 'm2o':
      w.column(target, relation.target.primary).raw(' = ').column(parent, relation.column);
      return;
    case 'o2m':
      if (relation.scope !== undefined) {
        w.column(target, relation.scope.collectionColumn).raw(' = ').value(relation.scope.collection).raw(' and ');
        w.column(target, relation.foreignKey).raw(' = ');
        w.dialect.asText(w, () => w.column(parent, relation.parentKey));
        return;
      }
      w.column(target, relation.foreignKey).raw(' = ').column(parent, relation.parentKey);
      return;
    case 'a2o':
      w.column(parent, relation.collectionColumn).raw(' = ').value(relation.target.collection).raw(' and ');
      w.column(target, relation.target.primary).raw(' = ');
      w.dialect.keyAs(w, () => w.column(parent, relation.column), relation.target.primaryType);
      return;
    default:
      assertNever(relation);
  }
}

/** A value read from the row of `alias`: a column, a date part, a count, an m2o path. */
export function writeOperand(w: SqlWriter, aliases: AliasCounter, alias: string, operand: Operand): void {
  switch (operand.kind) {
    case 'column':
      w.column(alias, operand.column);
      return;
    case 'datePart':
      w.dialect.datePart(w, operand.fn, () => w.column(alias, operand.column));
      return;
    case 'countRelated': {
      const target = aliases.next('t');
      w.raw('(select count(*) from ').id(operand.relation.target.collection).raw(' as ').id(target).raw(' where ');
      writeJoin(w, alias, target, operand.relation);
      writeAnd(w, aliases, target, operand.filter);
      w.raw(')');
      return;
    }
    case 'countElements': {
      const column: Emit = () => w.column(alias, operand.column);
      if (operand.type === 'json') {
        w.raw('coalesce(');
        w.dialect.jsonLength(w, column);
        w.raw(', 0)');
        return;
      }
      w.raw('(case when ');
      column(w);
      w.raw(' is null or ');
      column(w);
      w.raw(" = '' then 0 else length(");
      column(w);
      w.raw(') - length(replace(');
      column(w);
      w.raw(", ',', '')) + 1 end)");
      return;
    }
    case 'path': {
      // SELECT [min|max](<value>) FROM target WHERE join AND row permission: one value per row,
      // as ORDER BY compares it (paths are sorted on, never read).
      const target = aliases.next('t');
      const inner = operand.operand;
      w.raw('(select ');
      if (operand.pick === null) writeComparable(w, aliases, target, inner);
      else
        w.dialect.pick(
          w,
          operand.pick,
          () => {
            writeComparable(w, aliases, target, inner);
          },
          operandType(inner),
        );
      w.raw(' from ').id(operand.relation.target.collection).raw(' as ').id(target).raw(' where ');
      writeJoin(w, alias, target, operand.relation);
      writeAnd(w, aliases, target, operand.filter);
      w.raw(')');
      return;
    }
    default:
      assertNever(operand);
  }
}

/**
 * A sort value as the database orders it (Dialect.comparable; PostgreSQL's json as its text).
 * A path's subquery selects its value so already.
 */
export function writeComparable(w: SqlWriter, aliases: AliasCounter, alias: string, operand: Operand): void {
  if (operand.kind === 'path') {
    writeOperand(w, aliases, alias, operand);
    return;
  }
  w.dialect.comparable(
    w,
    () => {
      writeOperand(w, aliases, alias, operand);
    },
    operandType(operand),
  );
}

/** The type of the value an operand reads (date parts and counts are integers). */
function operandType(operand: Operand): FieldType {
  switch (operand.kind) {
    case 'column':
      return operand.type;
    case 'datePart':
    case 'countRelated':
    case 'countElements':
      return 'integer';
    case 'path':
      return operandType(operand.operand);
    default:
      return assertNever(operand);
  }
}

/** A bound value, or the subquery of a `$CURRENT_USER.<path>` lookup. */
function writeValue(w: SqlWriter, aliases: AliasCounter, value: Value): void {
  switch (value.kind) {
    case 'literal':
      w.value(w.dialect.bind(value.value, value.type));
      return;
    case 'lookup': {
      // Innermost step first: the key selects the first row, each step feeds the next.
      let inner: Emit = (ww) => ww.value(value.key);
      for (const step of value.steps) {
        const previous = inner;
        inner = (ww) => {
          const alias = aliases.next('u');
          ww.raw('(select ').column(alias, step.column).raw(' from ').id(step.collection).raw(' as ').id(alias);
          ww.raw(' where ').column(alias, step.keyColumn).raw(' = ');
          previous(ww);
          ww.raw(')');
        };
      }
      inner(w);
      return;
    }
    default:
      assertNever(value);
  }
}
