import { CompiledQuery, sql, type Compilable, type Kysely } from 'kysely';
import type { Database, Dialect } from '../../src/db/schema.ts';

export interface PlanVerdict {
  /** The plan as the database prints it, one line a node. */
  lines: string[];
  /** A list table read whole, with no index at all. */
  fullScan: boolean;
  /** Rows sorted before a LIMIT: the page's cost then grows with the matching rows. */
  sortBeforeLimit: boolean;
  /** Index names the plan uses. */
  indexes: string[];
  /** Columns the list tables' index scans are bounded by (equalities and ranges). */
  indexConditions: string[];
  /** A list table's scan drops rows after reading them (PostgreSQL's `Filter`). */
  residualFilter: boolean;
  /** Indexes the plan reads alone, no table row visited (PostgreSQL's Index Only Scan, SQLite's covering index). */
  indexOnly: string[];
}

const COLUMNS = new Set([
  'tenant_id',
  'account_id',
  'status',
  'currency',
  'card_brand',
  'card_last4',
  'reference',
  'amount',
  'created_at',
  'id',
  'name',
  'email',
  'name_folded',
  'email_folded',
]);

/** The list columns a printed index condition names (either dialect's spelling). */
function columnsOf(condition: string): string[] {
  return [...condition.replace(/'[^']*'/g, '').matchAll(/[a-z_][a-z0-9_]*/g)].map((m) => m[0]).filter((w) => COLUMNS.has(w));
}

const LIST_TABLES = /^(payments|accounts|list_buckets)$/;

interface PgNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Filter?: string;
  Plans?: PgNode[];
}

const LIST_ROWS = /^(payments|accounts)$/;

function readsListRows(node: PgNode): boolean {
  return LIST_ROWS.test(node['Relation Name'] ?? '') || (node.Plans ?? []).some(readsListRows);
}

function pgVerdict(root: PgNode): PlanVerdict {
  const verdict: PlanVerdict = { lines: [], fullScan: false, sortBeforeLimit: false, indexes: [], indexConditions: [], residualFilter: false, indexOnly: [] };
  const visit = (node: PgNode, depth: number, underLimit: boolean) => {
    const on = node['Index Name'] ? ` using ${node['Index Name']}` : '';
    const cond = node['Index Cond'] ? ` [${node['Index Cond']}]` : '';
    const filter = node.Filter ? ` filter [${node.Filter}]` : '';
    verdict.lines.push(`${'  '.repeat(depth)}${node['Node Type']}${node['Relation Name'] ? ` on ${node['Relation Name']}` : ''}${on}${cond}${filter}`);
    if (LIST_TABLES.test(node['Relation Name'] ?? '')) {
      if (node.Filter) verdict.residualFilter = true;
      if (node['Index Cond']) verdict.indexConditions.push(...columnsOf(node['Index Cond']));
    }
    if (node['Node Type'] === 'Seq Scan' && LIST_TABLES.test(node['Relation Name'] ?? '')) verdict.fullScan = true;
    // A sort of bucket counts (a few hundred rows) costs nothing that grows with the list.
    if (/Sort$/.test(node['Node Type']) && underLimit && readsListRows(node)) verdict.sortBeforeLimit = true;
    if (node['Index Name']) verdict.indexes.push(node['Index Name']);
    if (node['Node Type'] === 'Index Only Scan' && node['Index Name']) verdict.indexOnly.push(node['Index Name']);
    for (const child of node.Plans ?? []) visit(child, depth + 1, underLimit || node['Node Type'] === 'Limit');
  };
  visit(root, 0, false);
  return verdict;
}

/** Whether a temp b-tree sorts rows of a list table: one of its siblings in the plan reads one, itself or below. */
function sortsListRows(rows: Array<{ id: number; parent: number; detail: string }>, sort: { id: number; parent: number }): boolean {
  const readsList = (id: number): boolean =>
    rows.some((r) => r.id === id && /^(SEARCH|SCAN) (payments|accounts)\b/.test(r.detail)) || rows.some((r) => r.parent === id && readsList(r.id));
  return rows.some((r) => r.parent === sort.parent && r.id !== sort.id && readsList(r.id));
}

function sqliteVerdict(rows: Array<{ id: number; parent: number; detail: string }>, topLimited: boolean): PlanVerdict {
  const depth = new Map<number, number>([[0, -1]]);
  const verdict: PlanVerdict = { lines: [], fullScan: false, sortBeforeLimit: false, indexes: [], indexConditions: [], residualFilter: false, indexOnly: [] };
  for (const row of rows) {
    const d = (depth.get(row.parent) ?? -1) + 1;
    depth.set(row.id, d);
    verdict.lines.push(`${'  '.repeat(d)}${row.detail}`);
    if (/^SCAN (payments|accounts|list_buckets)\b/.test(row.detail) && !/USING (COVERING )?INDEX/.test(row.detail)) verdict.fullScan = true;
    // SQLite applies LIMIT after its temp b-tree. Inside a subquery (the deferred join's id list)
    // that always matters; at the top only when the top query has the LIMIT (the deferred
    // join's outer query just orders an id list that is limited already). A sort of bucket
    // counts (a few hundred rows, beside no scan of list rows) costs nothing that grows with the list.
    if (/USE TEMP B-TREE FOR .*ORDER BY/.test(row.detail) && (d > 0 || topLimited) && sortsListRows(rows, row)) verdict.sortBeforeLimit = true;
    const index = /USING (?:COVERING )?INDEX (\w+)(?: \((.*)\))?/.exec(row.detail);
    if (index) verdict.indexes.push(index[1]);
    // A WITHOUT ROWID table's own key (the metadata entry tables), named as PostgreSQL names it.
    const key = /^SEARCH (\w+) USING PRIMARY KEY/.exec(row.detail);
    if (key) verdict.indexes.push(`${key[1]}_pkey`);
    if (index && /USING COVERING INDEX/.test(row.detail)) verdict.indexOnly.push(index[1]);
    if (index?.[2] && /^SEARCH (payments|accounts)\b/.test(row.detail)) verdict.indexConditions.push(...columnsOf(index[2]));
  }
  return verdict;
}

/**
 * EXPLAIN of a query as the API would send it. `forceIndexes` makes PostgreSQL avoid seq scans
 * and sorts whenever any index allows it (tiny test tables would otherwise be read whole),
 * so what remains is what no index can serve.
 */
export async function explainPlan(db: Kysely<Database>, dialect: Dialect, query: Compilable, options: { forceIndexes?: boolean } = {}): Promise<PlanVerdict> {
  const compiled = query.compile();
  if (dialect === 'sqlite') {
    const result = await db.executeQuery<{ id: number; parent: number; detail: string }>(
      CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]),
    );
    const top = result.rows.filter((r) => r.parent === 0 || result.rows.some((p) => p.id === r.parent));
    return sqliteVerdict(top, /\blimit \?( offset \?)?$/.test(compiled.sql));
  }
  return db.connection().execute(async (conn) => {
    if (options.forceIndexes) {
      await sql`set enable_seqscan = off`.execute(conn);
      await sql`set enable_sort = off`.execute(conn);
    }
    try {
      const result = await conn.executeQuery<{ 'QUERY PLAN': Array<{ Plan: PgNode }> }>(
        CompiledQuery.raw(`explain (format json) ${compiled.sql}`, [...compiled.parameters]),
      );
      const plan = result.rows[0]['QUERY PLAN'];
      return pgVerdict((typeof plan === 'string' ? JSON.parse(plan) : plan)[0].Plan);
    } finally {
      if (options.forceIndexes) {
        await sql`reset enable_seqscan`.execute(conn);
        await sql`reset enable_sort`.execute(conn);
      }
    }
  });
}
