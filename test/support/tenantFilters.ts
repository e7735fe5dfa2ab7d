import { parse } from 'libpg-query';

/**
 * The tables distributed by tenant_id in docs/scaling.md ("Past one primary: Citus, distributed
 * by tenant"): a statement touching one of them is routed to one shard only when every reference
 * to it is pinned to one tenant. `tenants` and `api_keys` are reference tables (a copy on every
 * node): they need no filter.
 */
export const TENANT_TABLES = new Set([
  'accounts',
  'payments',
  'account_metadata',
  'payment_metadata',
  'list_counts',
  'list_buckets',
  'metadata_value_counts',
  'idempotency_keys',
  'events',
  'webhook_endpoints',
  'webhook_deliveries',
  'seed_runs',
  'seed_run_accounts',
]);

/** A node of libpg-query's JSON tree: `{ Kind: { …fields } }` or a plain object or array. */
type Node = any;

interface Scope {
  parent: Scope | undefined;
  /** Alias (or table name when none) → table name; null for a subquery or a CTE. */
  ranges: Map<string, string | null>;
  /** The tenant tables this scope reads or writes, as `alias`. */
  tenantRefs: string[];
}

/** What makes a term equal to others: a column (scope-qualified) or a value. */
type Term = { column: string } | { value: unknown };

/**
 * Why a statement is not single-tenant, one line per reference to a tenant table that is not
 * pinned to `tenantId`: pinned means a chain of `=` conjuncts (WHERE, JOIN … ON; never under OR
 * or NOT) from that reference's tenant_id to `tenantId` (a literal or a bound parameter); an
 * INSERT's rows must each carry `tenantId` as tenant_id (VALUES, or the arrays of an `unnest`),
 * and so must every row of a `COPY … FROM STDIN` (`copied`: the text it sent). A reference pinned
 * to another tenant is reported too. Empty: every tenant table it touches is the one tenant's, so
 * Citus routes the statement to that tenant's shard. Parsed by PostgreSQL's own parser (libpg-query).
 */
export async function tenantFilterGaps(text: string, values: readonly unknown[], tenantId: string, copied?: readonly string[]): Promise<string[]> {
  const tree = await parse(text);
  const gaps: string[] = [];
  for (const { stmt } of tree.stmts ?? []) gaps.push(...statementGaps(stmt, values, tenantId, copied));
  return gaps;
}

/** The tenants of the rows a COPY FROM sent, read from column `column` of each text line. */
function copiedTenants(copied: readonly string[], column: number): string[] {
  const lines = copied.join('').split('\n');
  return lines.filter((line) => line !== '' && line !== '\\.').map((line) => line.split('\t')[column] ?? '');
}

/** `insert … select * from unnest($1::text[], …)`: the array bound for the column at `column`, if that is how the rows come. */
function unnestArray(source: Node, column: number, values: readonly unknown[]): unknown[] | undefined {
  const star = source?.targetList?.length === 1 && source.targetList[0].ResTarget?.val?.ColumnRef?.fields?.[0]?.A_Star;
  const call = source?.fromClause?.length === 1 ? source.fromClause[0].RangeFunction?.functions?.[0]?.List?.items?.[0]?.FuncCall : undefined;
  if (!star || call?.funcname?.at(-1)?.String?.sval !== 'unnest') return undefined;
  let arg = call.args?.[column];
  while (arg?.TypeCast) arg = arg.TypeCast.arg;
  const bound = arg?.ParamRef ? values[arg.ParamRef.number - 1] : undefined;
  return Array.isArray(bound) ? bound : undefined;
}

function statementGaps(stmt: Node, values: readonly unknown[], tenantId: string, copied: readonly string[] | undefined): string[] {
  const parent = new Map<string, string>();
  const find = (key: string): string => {
    let at = key;
    while (parent.has(at) && parent.get(at) !== at) at = parent.get(at)!;
    return at;
  };
  const union = (a: string, b: string) => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent.set(ra, rb);
  };
  const scopes: Scope[] = [];
  const valueKey = (value: unknown) => `value:${JSON.stringify(value)}`;
  /** Values seen in equalities, by key. */
  const seenValues = new Map<string, unknown>();
  const inserts: Array<{ table: string; rows: unknown[][] | null; column: number; scopeKey: string }> = [];
  /** What the rows of a COPY FROM or an insert from arrays carry that is not the tenant. */
  const copyGaps: string[] = [];
  let scopeCount = 0;
  const scopeIds = new Map<Scope, number>();

  const termKey = (term: Term) => ('column' in term ? term.column : valueKey(term.value));

  /** The column a ColumnRef means, as `scopeId:alias.column`; undefined for anything else. */
  function columnOf(node: Node, scope: Scope): string | undefined {
    const ref = node?.ColumnRef;
    if (!ref) return undefined;
    const names = ref.fields.map((f: Node) => f.String?.sval);
    if (names.some((n: unknown) => typeof n !== 'string')) return undefined;
    const column = names[names.length - 1];
    if (names.length >= 2) {
      const alias = names[names.length - 2];
      for (let s: Scope | undefined = scope; s; s = s.parent) if (s.ranges.has(alias)) return `${scopeIds.get(s)}:${alias}.${column}`;
      return undefined;
    }
    // Unqualified: the one range of the nearest scope that has ranges (the service qualifies columns in joins).
    for (let s: Scope | undefined = scope; s; s = s.parent) {
      if (s.ranges.size === 1) return `${scopeIds.get(s)}:${[...s.ranges.keys()][0]}.${column}`;
      if (s.ranges.size > 1) return `${scopeIds.get(s)}:?.${column}`;
    }
    return undefined;
  }

  function termOf(node: Node, scope: Scope): Term | undefined {
    const column = columnOf(node, scope);
    if (column) return { column };
    if (node?.ParamRef) return { value: values[node.ParamRef.number - 1] };
    if (node?.A_Const?.sval) return { value: node.A_Const.sval.sval };
    if (node?.TypeCast) return termOf(node.TypeCast.arg, scope);
    return undefined;
  }

  /** Top-level AND conjuncts that are `a = b`: their two sides made one class. */
  function equalities(node: Node, scope: Scope): void {
    if (!node) return;
    if (node.BoolExpr?.boolop === 'AND_EXPR') {
      for (const arg of node.BoolExpr.args) equalities(arg, scope);
      return;
    }
    const expr = node.A_Expr;
    if (expr?.kind === 'AEXPR_OP' && expr.name.length === 1 && expr.name[0].String?.sval === '=') {
      const a = termOf(expr.lexpr, scope);
      const b = termOf(expr.rexpr, scope);
      if (a && b) {
        for (const term of [a, b]) if ('value' in term) seenValues.set(valueKey(term.value), term.value);
        union(termKey(a), termKey(b));
      }
    }
  }

  function newScope(parentScope: Scope | undefined): Scope {
    const scope: Scope = { parent: parentScope, ranges: new Map(), tenantRefs: [] };
    scopeIds.set(scope, scopeCount++);
    scopes.push(scope);
    return scope;
  }

  function addRange(scope: Scope, node: Node, ctes: Set<string>): void {
    if (node.RangeVar) {
      const table = node.RangeVar.relname as string;
      const alias = (node.RangeVar.alias?.aliasname as string | undefined) ?? table;
      const isTable = !ctes.has(table);
      scope.ranges.set(alias, isTable ? table : null);
      if (isTable && TENANT_TABLES.has(table)) scope.tenantRefs.push(alias);
    } else if (node.JoinExpr) {
      addRange(scope, node.JoinExpr.larg, ctes);
      addRange(scope, node.JoinExpr.rarg, ctes);
    } else if (node.RangeSubselect) {
      const alias = node.RangeSubselect.alias?.aliasname as string | undefined;
      if (alias) scope.ranges.set(alias, null);
    } else if (node.RangeFunction) {
      const alias = node.RangeFunction.alias?.aliasname as string | undefined;
      if (alias) scope.ranges.set(alias, null);
    }
  }

  /** The ON conditions of a FROM item's joins, and the subqueries in it. */
  function joinParts(scope: Scope, node: Node, ctes: Set<string>): void {
    if (node.JoinExpr) {
      joinParts(scope, node.JoinExpr.larg, ctes);
      joinParts(scope, node.JoinExpr.rarg, ctes);
      equalities(node.JoinExpr.quals, scope);
      visitNested(node.JoinExpr.quals, scope, ctes);
    } else if (node.RangeSubselect) {
      visitQuery(node.RangeSubselect.subquery, scope, ctes);
    } else if (node.RangeFunction) {
      visitNested(node.RangeFunction, scope, ctes);
    }
  }

  /** Subqueries anywhere below `node` (in expressions): each a scope of its own under `scope`. */
  function visitNested(node: Node, scope: Scope, ctes: Set<string>): void {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const item of node) visitNested(item, scope, ctes);
      return;
    }
    if (node.SubLink) {
      visitNested(node.SubLink.testexpr, scope, ctes);
      visitQuery(node.SubLink.subselect, scope, ctes);
      return;
    }
    for (const value of Object.values(node)) visitNested(value, scope, ctes);
  }

  function withCtes(node: Node, parentScope: Scope | undefined, ctes: Set<string>): Set<string> {
    const names = new Set(ctes);
    for (const cte of node?.withClause?.ctes ?? []) {
      names.add(cte.CommonTableExpr.ctename);
      visitQuery(cte.CommonTableExpr.ctequery, parentScope, names);
    }
    return names;
  }

  function visitQuery(node: Node, parentScope: Scope | undefined, ctes: Set<string>): void {
    if (!node) return;
    if (node.SelectStmt) {
      const select = node.SelectStmt;
      if (select.op && select.op !== 'SETOP_NONE') {
        const names = withCtes(select, parentScope, ctes);
        visitQuery({ SelectStmt: select.larg }, parentScope, names);
        visitQuery({ SelectStmt: select.rarg }, parentScope, names);
        return;
      }
      const names = withCtes(select, parentScope, ctes);
      const scope = newScope(parentScope);
      for (const item of select.fromClause ?? []) addRange(scope, item, names);
      for (const item of select.fromClause ?? []) joinParts(scope, item, names);
      equalities(select.whereClause, scope);
      for (const part of ['targetList', 'whereClause', 'havingClause', 'sortClause', 'limitCount', 'limitOffset', 'valuesLists'])
        visitNested(select[part], scope, names);
      return;
    }
    if (node.UpdateStmt || node.DeleteStmt) {
      const statement = node.UpdateStmt ?? node.DeleteStmt;
      const names = withCtes(statement, parentScope, ctes);
      const scope = newScope(parentScope);
      addRange(scope, { RangeVar: statement.relation }, names);
      for (const item of statement.fromClause ?? statement.usingClause ?? []) addRange(scope, item, names);
      for (const item of statement.fromClause ?? statement.usingClause ?? []) joinParts(scope, item, names);
      equalities(statement.whereClause, scope);
      for (const part of ['targetList', 'whereClause', 'returningList']) visitNested(statement[part], scope, names);
      return;
    }
    if (node.InsertStmt) {
      const insert = node.InsertStmt;
      const names = withCtes(insert, parentScope, ctes);
      const table = insert.relation.relname as string;
      const scope = newScope(parentScope);
      const alias = (insert.relation.alias?.aliasname as string | undefined) ?? table;
      scope.ranges.set(alias, table);
      const columns: string[] = (insert.cols ?? []).map((c: Node) => c.ResTarget.name);
      const source = insert.selectStmt?.SelectStmt;
      const tenantColumn = columns.indexOf('tenant_id');
      const arrayRows = TENANT_TABLES.has(table) && tenantColumn >= 0 ? unnestArray(source, tenantColumn, values) : undefined;
      if (arrayRows) {
        for (const other of new Set(arrayRows.filter((t) => t !== tenantId)))
          copyGaps.push(`insert into ${table} … unnest: a row's tenant_id is ${String(other)}, not ${tenantId}`);
      } else if (TENANT_TABLES.has(table)) {
        const rows = source?.valuesLists ? source.valuesLists.map((row: Node) => row.List.items) : null;
        inserts.push({ table, rows, column: columns.indexOf('tenant_id'), scopeKey: String(scopeIds.get(scope)) });
        if (!rows && source) {
          // INSERT … SELECT: the row's tenant_id is the select's column at that position.
          const selectScopeId = scopeCount;
          visitQuery(insert.selectStmt, scope, names);
          const target = source.targetList?.[columns.indexOf('tenant_id')]?.ResTarget?.val;
          const selectScope = scopes.find((s) => scopeIds.get(s) === selectScopeId);
          const term = target && selectScope ? termOf(target, selectScope) : undefined;
          if (term) {
            if ('value' in term) seenValues.set(valueKey(term.value), term.value);
            union(`insert:${scopeIds.get(scope)}`, termKey(term));
          }
        } else if (rows) {
          for (const row of rows) visitNested(row, scope, names);
        }
      } else {
        visitQuery(insert.selectStmt, scope, names);
      }
      visitNested(insert.onConflictClause, scope, names);
      visitNested(insert.returningList, scope, names);
      return;
    }
    if (node.CopyStmt) {
      visitQuery(node.CopyStmt.query, parentScope, ctes);
      const table = node.CopyStmt.relation?.relname as string | undefined;
      if (node.CopyStmt.is_from && table && TENANT_TABLES.has(table)) {
        // Its rows are data: each carries its tenant_id, by which Citus routes it (as an insert's rows).
        const column = (node.CopyStmt.attlist ?? []).map((c: Node) => c.String?.sval).indexOf('tenant_id');
        if (column === -1) copyGaps.push(`copy into ${table}: no tenant_id column`);
        else if (!copied) copyGaps.push(`copy into ${table}: its rows were not seen`);
        else
          for (const other of new Set(copiedTenants(copied, column).filter((t) => t !== tenantId)))
            copyGaps.push(`copy into ${table}: a row's tenant_id is ${other}, not ${tenantId}`);
      } else if (node.CopyStmt.relation) {
        const scope = newScope(parentScope);
        addRange(scope, { RangeVar: node.CopyStmt.relation }, ctes);
      }
      return;
    }
    if (node.ExplainStmt) visitQuery(node.ExplainStmt.query, parentScope, ctes);
  }

  visitQuery(stmt, undefined, new Set());

  /** The values a class holds. */
  const valuesOf = (key: string) => [...seenValues.entries()].filter(([k]) => find(k) === find(key)).map(([, v]) => v);
  const gaps: string[] = [...copyGaps];
  for (const scope of scopes) {
    for (const alias of scope.tenantRefs) {
      const table = scope.ranges.get(alias);
      const pinned = valuesOf(`${scopeIds.get(scope)}:${alias}.tenant_id`);
      const name = alias === table ? `${table}` : `${table} (as ${alias})`;
      if (pinned.length === 0) gaps.push(`${name}: tenant_id not pinned by an equality`);
      else if (pinned.some((v) => v !== tenantId)) gaps.push(`${name}: tenant_id pinned to ${pinned.map(String).join(', ')}, not ${tenantId}`);
    }
  }
  for (const insert of inserts) {
    if (insert.column === -1) {
      gaps.push(`insert into ${insert.table}: no tenant_id column`);
      continue;
    }
    if (insert.rows) {
      for (const row of insert.rows) {
        const term = termOf(row[insert.column], { parent: undefined, ranges: new Map(), tenantRefs: [] });
        if (!term || !('value' in term)) gaps.push(`insert into ${insert.table}: a row's tenant_id is not a value`);
        else if (term.value !== tenantId) gaps.push(`insert into ${insert.table}: a row's tenant_id is ${String(term.value)}, not ${tenantId}`);
      }
      continue;
    }
    const pinned = valuesOf(`insert:${insert.scopeKey}`);
    if (pinned.length === 0) gaps.push(`insert into ${insert.table} … select: tenant_id not pinned`);
    else if (pinned.some((v) => v !== tenantId)) gaps.push(`insert into ${insert.table} … select: tenant_id pinned to ${pinned.map(String).join(', ')}`);
  }
  return gaps;
}
