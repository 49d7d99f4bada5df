import { assertNever } from '../../errors.js';
import type { AggregateAst, AggregateNode, CountAst } from '../ast/nodes.js';
import { AliasCounter, writeComparable, writeCondition, writeOperand } from './compile-condition.js';
import { columnAlias } from './compile-read.js';
import { SqlWriter, type CompiledSql, type ReadDialect } from '../../db/dialects/read.js';

/**
 * aggregate + groupBy: SELECT groups, aggregates FROM root WHERE filter
 * GROUP BY groups ORDER BY outputs LIMIT. Columns are c0.. (groups first, then aggregates).
 */
export function compileAggregate(dialect: ReadDialect, ast: AggregateAst): CompiledSql {
  const w = new SqlWriter(dialect);
  const aliases = new AliasCounter();
  const alias = aliases.next('t');
  let output = 0;
  w.raw('select ');
  w.join(ast.groups, ', ', (group) => {
    dialect.readColumn(
      w,
      () => {
        writeOperand(w, aliases, alias, group.operand);
      },
      group.type,
    );
    w.raw(' as ').id(columnAlias(output++));
  });
  if (ast.groups.length > 0 && ast.aggregates.length > 0) w.raw(', ');
  w.join(ast.aggregates, ', ', (aggregate) => {
    writeAggregate(w, alias, aggregate);
    w.raw(' as ').id(columnAlias(output++));
  });
  if (output === 0) w.raw('count(*) as ').id(columnAlias(0));
  w.raw(' from ').id(ast.collection.collection).raw(' as ').id(alias);
  if (ast.filter !== null) {
    w.raw(' where ');
    writeCondition(w, aliases, alias, ast.filter);
  }
  if (ast.groups.length > 0) {
    w.raw(' group by ').join(ast.groups, ', ', (group, i) => {
      // A count of related rows is a subquery: written again, with aliases and bound values of
      // its own, PostgreSQL would not match it with the output ("subquery uses ungrouped
      // column"). The output's position names it (groups are the first outputs).
      if (group.operand.kind === 'countRelated') w.raw(String(i + 1));
      else writeComparable(w, aliases, alias, group.operand);
    });
  }
  if (ast.sort.length > 0) {
    w.raw(' order by ').join(ast.sort, ', ', (s) => {
      const aggregate = ast.aggregates[s.output - ast.groups.length];
      // MariaDB refuses an aggregate's alias inside an expression (`c1 is null`, "reference to
      // group function"): an aggregate that can be NULL is sorted on its expression.
      const value = () => {
        if (aggregate !== undefined && s.canBeNull) writeAggregate(w, alias, aggregate);
        else w.id(columnAlias(s.output));
      };
      dialect.sortTerm(w, value, s.descending, s.canBeNull);
    });
  }
  dialect.limitOffset(w, ast.limit, ast.offset);
  return w.finish();
}

function writeAggregate(w: SqlWriter, alias: string, node: AggregateNode): void {
  const column = () => {
    if (node.column === null) w.raw('*');
    else w.column(alias, node.column);
  };
  switch (node.fn) {
    case 'count':
    case 'countAll':
      w.raw('count(');
      column();
      w.raw(')');
      return;
    case 'countDistinct':
      w.raw('count(distinct ');
      w.dialect.comparable(w, column, node.type);
      w.raw(')');
      return;
    case 'sum':
    case 'sumDistinct':
      w.raw(node.fn === 'sum' ? 'sum(' : 'sum(distinct ');
      column();
      w.raw(')');
      return;
    case 'avg':
    case 'avgDistinct':
      w.raw(node.fn === 'avg' ? 'avg(' : 'avg(distinct ');
      w.dialect.asDouble(w, column);
      w.raw(')');
      return;
    case 'min':
    case 'max':
      w.dialect.readColumn(
        w,
        () => {
          w.raw(`${node.fn}(`);
          column();
          w.raw(')');
        },
        node.type,
      );
      return;
    default:
      assertNever(node.fn);
  }
}

/** meta: one count subquery per requested number, in one statement. */
export function compileCount(dialect: ReadDialect, ast: CountAst): CompiledSql {
  const w = new SqlWriter(dialect);
  const aliases = new AliasCounter();
  w.raw('select ');
  w.join(ast.counts, ', ', (count, i) => {
    const alias = aliases.next('t');
    w.raw('(select count(*) from ').id(ast.collection.collection).raw(' as ').id(alias);
    if (count.filter !== null) {
      w.raw(' where ');
      writeCondition(w, aliases, alias, count.filter);
    }
    w.raw(') as ').id(columnAlias(i));
  });
  return w.finish();
}
