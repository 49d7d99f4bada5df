// Over 400 lines, kept whole: the read compiler's one walk of the AST (levels, joins, nested JSON per dialect) reads best in one place.
import { assertNever, invariant } from '../../errors.js';
import type {
  A2ONode,
  Condition,
  LevelQuery,
  M2ONode,
  O2MNode,
  ReadAst,
  FieldNode,
  HiddenValues,
  ReadNode,
  SortNode,
} from '../ast/nodes.js';
import { AliasCounter, writeComparable, writeCondition, writeJoin, writeOperand } from './compile-condition.js';
import { pgJsonValue, type JsonForm } from './pg-json-value.js';
import { SqlWriter, type CompiledSql, type ReadDialect, type Emit } from '../../db/dialects/read.js';

const COLUMN_ALIASES: string[] = [];

/** Column alias of the root row's i-th value (the shaper reads them by position). */
export const columnAlias = (index: number): string => (COLUMN_ALIASES[index] ??= `c${index}`);

/**
 * One table of the statement, and (PostgreSQL) the LATERAL subqueries its values are read
 * from, written after its FROM.
 */
interface Scope {
  readonly alias: string;
  readonly laterals: (() => void)[];
}

/**
 * The whole read tree as ONE statement:
 * related rows become JSON tuples built in the database: m2o rows through scalar subqueries,
 * o2m lists through LATERAL joins on PostgreSQL and correlated subqueries (JSON_ARRAYAGG /
 * json_group_array) on MySQL/MariaDB and SQLite. Every nested level applies its own filter,
 * sort and window.
 */
export function compileRead(dialect: ReadDialect, ast: ReadAst): CompiledSql {
  const compiler = new ReadCompiler(new SqlWriter(dialect), null);
  compiler.root(ast);
  return compiler.w.finish();
}

/**
 * PostgreSQL only: the same read as ONE row whose `json` column is the items' JSON array
 * text, each item keyed as the shaper keys it and its values in the shaper's forms, so the
 * response is written without parsing, shaping and serializing rows in JavaScript. Only for
 * trees `hasJsonForm` accepts (pg/pg-json-value.ts). Every level, nested ones included, is a
 * derived table whose column names are the keys (`records`): an m2o value is one such record,
 * an o2m list an array of them, and the root's array_to_json turns the whole tree into JSON
 * at once (bench/README.md: cheaper than json_build_object and json_agg per level).
 * `rootTable`: the relation the root level reads, its collection's table unless named (a
 * write's CTE of the rows it wrote, which have the table's columns).
 */
export function compileReadJson(
  dialect: ReadDialect,
  ast: ReadAst,
  rootTable = ast.collection.collection,
  form: JsonForm = 'api',
): CompiledSql {
  invariant(dialect.writesJsonOutput, 'JSON output is written by PostgreSQL');
  const compiler = new ReadCompiler(new SqlWriter(dialect), form);
  compiler.jsonRoot(ast, rootTable);
  return compiler.w.finish();
}

class ReadCompiler {
  readonly aliases = new AliasCounter();
  /** `json`: tuples become objects and values their JSON form (compileReadJson); null: rows. */
  constructor(
    readonly w: SqlWriter,
    private readonly json: JsonForm | null,
  ) {}

  /** SELECT c0, c1, ... FROM root [LATERAL ...] WHERE ... ORDER BY ... LIMIT ... */
  root(ast: ReadAst): void {
    const { w } = this;
    if (w.dialect.sortsNullablePathsInDerivedRoot && ast.level.sort.some(repeatsSubquery)) {
      this.derivedRoot(ast);
      return;
    }
    const scope: Scope = { alias: this.aliases.next('t'), laterals: [] };
    w.raw('select ');
    this.rootValues(scope, ast);
    this.from(scope, ast.collection.collection, null, ast.level.filter);
    this.orderBy(scope.alias, ast.level.sort);
    w.dialect.limitOffset(w, ast.level.limit, ast.level.offset);
  }

  /**
   * MariaDB, sorted on a nullable value through a many-to-one: NULLs-largest order names the
   * value twice (`v is null, v`), which would write the correlated subquery twice. The rows
   * and their sort values (s0, s1, ...) come from a derived table ordered outside by those
   * names (an alias of the same SELECT can't be used: in an ORDER BY expression MariaDB reads
   * a same-named column of the table first). MariaDB merges the derived table, and both sort
   * terms run the one subquery through its expression cache.
   * SELECT x.c0, ... FROM (SELECT ... AS c0, ..., <sort value> AS s0, ... FROM root WHERE ...)
   * AS x ORDER BY x.s0 IS NULL, x.s0, ... LIMIT ...
   */
  private derivedRoot(ast: ReadAst): void {
    const { w } = this;
    const scope: Scope = { alias: this.aliases.next('t'), laterals: [] };
    const derived = this.aliases.next('x');
    w.raw('select ');
    const count = Math.max(ast.children.length, 1);
    w.join(
      Array.from({ length: count }, (_, i) => columnAlias(i)),
      ', ',
      (column) => w.column(derived, column),
    );
    w.raw(' from (select ');
    this.rootValues(scope, ast);
    this.sortValues(scope.alias, ast.level);
    this.from(scope, ast.collection.collection, null, ast.level.filter);
    w.raw(') as ').id(derived);
    this.derivedOrder(derived, ast.level);
    w.dialect.limitOffset(w, ast.level.limit, ast.level.offset);
  }

  /** `<value> AS c0, <value> AS c1, ...`: the root row's values by position (null AS c0 for none). */
  private rootValues(scope: Scope, ast: ReadAst): void {
    const { w } = this;
    if (ast.children.length === 0) w.raw('null as ').id(columnAlias(0));
    w.join(ast.children, ', ', (child, i) => {
      this.value(scope, child);
      w.raw(' as ').id(columnAlias(i));
    });
  }

  /**
   * SELECT cast(array_to_json(ARRAY(<records of the root>)) AS text) AS json: one row. Each
   * item is its record as JSON, keyed by the column names (row_to_json: half the cost of
   * json_build_object and a cast per row), in the derived table's order, which a plain scan
   * of it keeps (as PostgREST's json_agg over an ordered subquery relies on); no aggregate
   * sorts the rows again.
   */
  jsonRoot(ast: ReadAst, table: string): void {
    const { w } = this;
    const scope: Scope = { alias: this.aliases.next('t'), laterals: [] };
    w.raw('select cast(array_to_json(array(');
    this.records(scope, ast.children, table, ast.collection.primary, null, ast.level);
    w.raw(')) as text) as ').id('json');
  }

  /**
   * JSON output: SELECT x FROM (SELECT value AS "key", ... FROM table WHERE join AND filter
   * ORDER BY ... LIMIT ...) AS x, the level's rows as records whose column names are the keys
   * (hasJsonForm keeps them within PostgreSQL's 63-byte names). Nested records and arrays of
   * them become JSON objects and arrays when the root's array_to_json reaches them.
   */
  private records(
    scope: Scope,
    children: readonly ReadNode[],
    table: string,
    primary: string,
    join: Emit | null,
    level: LevelQuery,
  ): void {
    const { w } = this;
    const derived = this.aliases.next('x');
    w.raw('select ').id(derived).raw(' from (select ');
    w.join(children, ', ', (child) => {
      this.value(scope, child, primary);
      w.raw(' as ').id(child.key);
    });
    this.from(scope, table, join, level.filter);
    this.orderBy(scope.alias, level.sort);
    w.dialect.limitOffset(w, level.limit, level.offset);
    w.raw(') as ').id(derived);
  }

  /** JSON output, m2o: (records of the related row), null when there is none or it fails the filter. */
  private relatedRecord(parent: string, node: M2ONode): void {
    const scope: Scope = { alias: this.aliases.next('t'), laterals: [] };
    const join: Emit = () => {
      writeJoin(this.w, parent, scope.alias, node.relation);
    };
    this.w.raw('(');
    const { target } = node.relation;
    this.records(scope, node.children, target.collection, target.primary, join, {
      filter: node.filter,
      sort: [],
      limit: null,
      offset: 0,
    });
    this.w.raw(')');
  }

  /**
   * JSON output, o2m: ARRAY(records of the related rows), or ARRAY(SELECT key ...) for a list of
   * keys, in the level's order and window; an empty array when there are none.
   */
  private relatedRecords(parent: string, node: O2MNode): void {
    const { w } = this;
    const scope: Scope = { alias: this.aliases.next('t'), laterals: [] };
    const { target } = node.relation;
    const join: Emit = () => {
      writeJoin(w, parent, scope.alias, node.relation);
    };
    w.raw('array(');
    if (node.children !== null) {
      this.records(scope, node.children, target.collection, target.primary, join, node.level);
    } else {
      w.raw('select ');
      pgJsonValue(w, () => w.column(scope.alias, target.primary), target.primaryType, false, this.json ?? 'api', true);
      this.from(scope, target.collection, join, node.level.filter);
      this.orderBy(scope.alias, node.level.sort);
      w.dialect.limitOffset(w, node.level.limit, node.level.offset);
    }
    w.raw(')');
  }

  /** `, <sort operand> AS s0, ...`: what derivedOrder orders the aggregate by. */
  private sortValues(alias: string, level: LevelQuery): void {
    level.sort.forEach((s, i) => {
      this.w.raw(', ');
      writeComparable(this.w, this.aliases, alias, s.operand);
      this.w.raw(' as ').id(`s${i}`);
    });
  }

  /** FROM table AS alias, its laterals, and WHERE join AND filter. */
  private from(scope: Scope, table: string, join: Emit | null, filter: Condition | null): void {
    const { w } = this;
    w.raw(' from ').id(table).raw(' as ').id(scope.alias);
    for (const lateral of scope.laterals) lateral();
    if (join === null && filter === null) return;
    w.raw(' where ');
    if (join !== null) join(w);
    if (join !== null && filter !== null) w.raw(' and ');
    if (filter !== null) writeCondition(w, this.aliases, scope.alias, filter);
  }

  private orderBy(alias: string, sort: readonly SortNode[]): void {
    if (sort.length === 0) return;
    const { w } = this;
    w.raw(' order by ').join(sort, ', ', (s) => {
      w.dialect.sortTerm(
        w,
        () => {
          writeComparable(w, this.aliases, alias, s.operand);
        },
        s.descending,
        s.canBeNull,
      );
    });
  }

  /** One value of a row: a column, a function, or a related row/list as JSON (`primary`: the level's key, JSON only). */
  private value(scope: Scope, node: ReadNode, primary?: string): void {
    const { w } = this;
    switch (node.kind) {
      case 'field': {
        const { hidden } = node;
        const column: Emit = (w) => {
          if (hidden === undefined) w.column(scope.alias, node.column);
          else visibleValues(w, scope.alias, node, hidden);
        };
        if (this.json !== null) pgJsonValue(w, column, node.type, node.masked, this.json, node.column === primary);
        else w.dialect.readColumn(w, column, node.type);
        return;
      }
      case 'function':
        writeOperand(w, this.aliases, scope.alias, node.operand);
        return;
      case 'constant':
        // Bound as text: PostgreSQL cannot tell a bare parameter's type in a select list.
        w.dialect.asText(w, (w) => w.value(node.value));
        return;
      case 'm2o':
        // A scalar subquery on every dialect: PostgreSQL then probes the target's primary key
        // per row, where a LATERAL join let it hash-join a scan of the whole target table
        // (bench/README.md: o2m + m2m 1.4x faster in PostgreSQL).
        if (this.json !== null) this.relatedRecord(scope.alias, node);
        else this.subquery(scope.alias, node);
        return;
      case 'o2m':
        if (this.json !== null) this.relatedRecords(scope.alias, node);
        else if (w.dialect.hasLateralLists) this.lateral(scope, node);
        else this.subquery(scope.alias, node);
        return;
      case 'a2o':
        this.anyItem(scope, node);
        return;
      default:
        assertNever(node);
    }
  }

  /** The JSON tuple of one row of `scope`: its values by position (the row path's). */
  private tuple(scope: Scope, children: readonly ReadNode[]): void {
    this.w.dialect.jsonArray(
      this.w,
      children.map((child) => () => {
        this.value(scope, child);
      }),
    );
  }

  /** PostgreSQL: an o2m list comes from LEFT JOIN LATERAL (...) AS lN ON true. */
  private lateral(scope: Scope, node: O2MNode): void {
    const { w } = this;
    const alias = this.aliases.next('l');
    w.column(alias, 'v');
    scope.laterals.push(() => {
      w.raw(' left join lateral (');
      this.relatedList(scope.alias, node);
      w.raw(') as ').id(alias).raw(' on true');
    });
  }

  /** A correlated scalar subquery: m2o rows on every dialect, o2m lists on MySQL/MariaDB and SQLite. */
  private subquery(parent: string, node: M2ONode | O2MNode): void {
    this.w.raw('(');
    if (node.kind === 'm2o') this.relatedRow(parent, node);
    else this.relatedList(parent, node);
    this.w.raw(')');
  }

  /** SELECT <tuple> AS v FROM target WHERE target.pk = parent.fk AND filter. */
  private relatedRow(parent: string, node: M2ONode): void {
    const scope: Scope = { alias: this.aliases.next('t'), laterals: [] };
    this.w.raw('select ');
    this.tuple(scope, node.children);
    this.w.raw(' as ').id('v');
    const join: Emit = () => {
      writeJoin(this.w, parent, scope.alias, node.relation);
    };
    this.from(scope, node.relation.target.collection, join, node.filter);
  }

  /**
   * The o2m list as a JSON array of tuples (or of keys), in the level's order and window.
   * PostgreSQL and SQLite aggregate a derived table (the window applies before aggregation);
   * MySQL/MariaDB aggregate directly with JSON_ARRAYAGG(... ORDER BY ... LIMIT ...), since a
   * derived table there cannot see the parent row.
   */
  private relatedList(parent: string, node: O2MNode): void {
    const { w } = this;
    const scope: Scope = { alias: this.aliases.next('t'), laterals: [] };
    const element: Emit = () => {
      if (node.children === null) {
        const target = node.relation.target;
        w.dialect.readColumn(w, () => w.column(scope.alias, target.primary), target.primaryType);
      } else {
        this.tuple(scope, node.children);
      }
    };
    const join: Emit = () => {
      writeJoin(w, parent, scope.alias, node.relation);
    };
    const { level } = node;
    w.raw(`select coalesce(${w.dialect.jsonListFunction}(`);
    switch (w.dialect.listAggregation) {
      case 'inline':
        element(w);
        this.orderBy(scope.alias, level.sort);
        w.dialect.limitOffset(w, level.limit, level.offset);
        w.raw('), ').raw(w.dialect.emptyJsonArray).raw(')');
        this.from(scope, node.relation.target.collection, join, level.filter);
        return;
      case 'derived': {
        const derived = this.aliases.next('x');
        w.dialect.listElement(w, () => w.column(derived, 'v'), node.children !== null);
        this.derivedOrder(derived, level);
        w.raw('), ').raw(w.dialect.emptyJsonArray).raw(') as ').id('v').raw(' from (select ');
        element(w);
        w.raw(' as ').id('v');
        this.sortValues(scope.alias, level);
        this.from(scope, node.relation.target.collection, join, level.filter);
        this.orderBy(scope.alias, level.sort);
        w.dialect.limitOffset(w, level.limit, level.offset);
        w.raw(') as ').id(derived);
        return;
      }
      default:
        assertNever(w.dialect.listAggregation);
    }
  }

  /** ORDER BY on the sort values the derived table carries (inside the aggregate for o2m lists). */
  private derivedOrder(derived: string, level: LevelQuery): void {
    if (level.sort.length === 0) return;
    const { w } = this;
    w.raw(' order by ').join(level.sort, ', ', (s, i) => {
      w.dialect.sortTerm(w, () => w.column(derived, `s${i}`), s.descending, s.canBeNull);
    });
  }

  /**
   * A many-to-any item: [collection, stored key, tuple of the related row when a branch is
   * requested for that collection]. The shaper picks the object or the raw key.
   */
  private anyItem(scope: Scope, node: A2ONode): void {
    const { w } = this;
    const branchValue: Emit = () => {
      w.raw('case');
      for (const branch of node.branches) {
        w.raw(' when ').column(scope.alias, node.collectionColumn).raw(' = ').value(branch.relation.target.collection);
        w.raw(' then (');
        const inner: Scope = { alias: this.aliases.next('t'), laterals: [] };
        w.raw('select ');
        this.tuple(inner, branch.children);
        const join: Emit = () => {
          writeJoin(w, scope.alias, inner.alias, branch.relation);
        };
        this.from(inner, branch.relation.target.collection, join, branch.filter);
        w.raw(')');
      }
      w.raw(' end');
    };
    w.dialect.jsonArray(w, [
      () => w.column(scope.alias, node.collectionColumn),
      () => w.column(scope.alias, node.column),
      branchValue,
    ]);
  }
}

/** A sort term that names a correlated subquery twice where NULLs need a term of their own. */
function repeatsSubquery(sort: SortNode): boolean {
  return sort.canBeNull && sort.operand.kind === 'path';
}

/**
 * An item-values column as the caller may see it (ast/hidden-values.ts): CASE on the row's
 * collection: the value itself, without the hidden keys, or null.
 */
function visibleValues(w: SqlWriter, alias: string, node: FieldNode, hidden: HiddenValues): void {
  const value: Emit = (w) => w.column(alias, node.column);
  const collection = (): SqlWriter => w.column(alias, hidden.collectionColumn);
  w.raw('(case');
  if (hidden.whole.length > 0) {
    w.raw(' when ');
    collection()
      .raw(' in (')
      .join(hidden.whole, ', ', (name) => w.value(name))
      .raw(') then ');
    value(w);
  }
  for (const { collection: name, fields } of hidden.partial) {
    w.raw(' when ');
    collection().raw(' = ').value(name).raw(' then ');
    w.dialect.withoutJsonKeys(w, value, fields);
  }
  w.raw(' else null end)');
}
