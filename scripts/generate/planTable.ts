import { readFileSync, writeFileSync } from 'node:fs';
import type { Dialect } from '../../src/db/schema.ts';
import { parseQueryString } from '../../src/http/parseQueryString.ts';
import { accountListSpec } from '../../src/accounts/accountListSpec.ts';
import { paymentListSpec } from '../../src/payments/paymentListSpec.ts';
import { parseListQuery, type RawListQuery } from '../../src/lists/request/parseListQuery.ts';
import type { ListScope, ListTable } from '../../src/lists/request/listScope.ts';
import { DEFAULT_TUNING } from '../../src/lists/plan/listTuning.ts';
import { FOLDED_ROWS_PER_CREATE } from '../../src/lists/counters/writeBudget.ts';
import type { CountQuestion, MetadataCounts, PagePlan, PlanCounts, SnapshotPlan, TotalWay } from '../../src/lists/plan/pagePlan.ts';
import { countedMetadataPlan, nextQuestion, pageRequestOf, planPage, planRows } from '../../src/lists/plan/planPage.ts';
import { searchesMetadata } from '../../src/lists/plan/metadataPlans.ts';

/**
 * docs/performance.md's plan table, generated from the planner itself (plan/planPage.ts): each
 * request shape below is planned on both dialects, every count the planner asks answered once
 * "few" and once "many", and the plans that come out are the table's cells. A planner change
 * that changes a plan changes the table (test/docs/planTable.test.ts).
 */
export const PERFORMANCE = new URL('../../docs/performance.md', import.meta.url);

const START = '<!-- plan table: generated from src/lists/plan/planPage.ts by `npm run generate` -->';
const END = '<!-- end of plan table -->';

interface Shape {
  /** What a client asks, in words. */
  shape: string;
  table?: ListTable;
  /** One account's list (`/v3/accounts/{id}/payments`). */
  account?: boolean;
  query: string;
  /** Which page: the first, or one in the middle of a million rows. */
  depth: 'first' | 'deep';
  /** The index the plan reads (checked by EXPLAIN on both databases in test/lists/queryPlans.e2e.test.ts). */
  index: string;
}

const SHAPES: Shape[] = [
  { shape: 'No filter, or any-of values of counted dimensions', query: 'filter[status]=succeeded', depth: 'first', index: "the slice's index in sort order" },
  {
    shape: 'The same, a deep page sorted by `created_at` or `amount`',
    query: 'filter[status]=succeeded&sort=-amount',
    depth: 'deep',
    index: "`list_buckets`, then the slice's index",
  },
  {
    shape: 'A `created_at` range sorted by `created_at`',
    query: 'filter[created_at][gte]=2026-03-01T00:00:00Z&filter[created_at][lt]=2026-04-01T00:00:00Z',
    depth: 'deep',
    index: '`list_buckets`, then the `created_at` index',
  },
  {
    shape: 'A `created_at` range sorted by `amount`, a first page',
    query: 'filter[created_at][gte]=2026-03-01T00:00:00Z&sort=-amount',
    depth: 'first',
    index: "the amount index (carries `created_at`) or the range's",
  },
  {
    shape: 'A `created_at` range sorted by `amount`, a deep page',
    query: 'filter[created_at][gte]=2026-03-01T00:00:00Z&sort=-amount',
    depth: 'deep',
    index: 'class rows per time bucket, then the amount index',
  },
  {
    shape: 'An `amount` range sorted by `created_at`, a deep page',
    query: 'filter[amount][gte]=1500',
    depth: 'deep',
    index: '`list_buckets` (`created_at.a…` keys), then the `created_at` index',
  },
  { shape: "A card's last four", query: 'filter[card_last4]=4242', depth: 'first', index: "`payments_tenant_last4` or the sort's index" },
  {
    shape: 'Three dimensions beside a range (no count covers it)',
    query: 'filter[status]=succeeded&filter[currency]=EUR&filter[card_brand]=visa&filter[amount][gte]=1000',
    depth: 'deep',
    index: "PostgreSQL: values as literals; SQLite: one dimension's index, carrying the others",
  },
  {
    shape: 'Metadata, one key, sorted by `created_at`',
    query: 'filter[metadata][channel]=web',
    depth: 'deep',
    index: 'the entry key (tenant, key, value, `created_at`, record)',
  },
  {
    shape: 'Metadata, several keys',
    query: 'filter[metadata][channel]=web&filter[metadata][tier]=gold',
    depth: 'deep',
    index: "the lead key's entries, the others probed",
  },
  {
    shape: "Metadata in one account's list, a first page",
    account: true,
    query: 'filter[metadata][channel]=web',
    depth: 'first',
    index: "the list's index + the entry key",
  },
  {
    shape: "Metadata in one account's list, a deep page",
    account: true,
    query: 'filter[metadata][channel]=web',
    depth: 'deep',
    index: "the list's index + the entry key",
  },
  {
    shape: "Several dimensions in one account's list, a deep page",
    account: true,
    query: 'filter[status]=succeeded&filter[currency]=EUR',
    depth: 'deep',
    index: "the sort's index, index-only",
  },
  { shape: 'Accounts by name (`contains`), a deep page', table: 'accounts', query: 'filter[name]=acme', depth: 'deep', index: "the sort's index" },
];

const MILLION = 1_000_000;
const DEEP_OFFSET = 400_000;

/** Two answers to each question: few rows and many. */
function answers(question: CountQuestion): PlanCounts[] {
  switch (question.ask) {
    case 'range-share':
      return [{ rangeShare: { slice: MILLION, covered: 500 } }, { rangeShare: { slice: MILLION, covered: 900_000 } }];
    case 'sliver-rows':
      return [{ sliverRows: 10 }, { sliverRows: 500_000 }];
    case 'keyed':
      return [{ keyed: { keyed: 50, size: MILLION, whole: MILLION } }, { keyed: { keyed: 20_001, size: 1000, whole: MILLION } }];
    case 'metadata':
      return [{ metadata: fewEntries }, { metadata: manyEntries }];
    case 'entry-leads':
      return [{ entryLeads: { e0: 1000, e1: 10 } }];
  }
}

const fewEntries: MetadataCounts = { entries: 1000, matches: 1000, lead: 0, size: MILLION, slice: MILLION };
const manyEntries: MetadataCounts = { entries: 900_000, matches: 900_000, lead: 0, size: 1000, slice: 1000 };

const code = (text: string) => `\`${text}\``;

function totalText(total: TotalWay): string {
  switch (total.from) {
    case 'list_counts':
      return '`list_counts` + changes waiting';
    case 'list_buckets':
      return 'bucket runs + edge rows + changes waiting';
    case 'metadata':
      return total.count === 'entries'
        ? '`metadata_value_counts`'
        : total.count === 'probe'
          ? 'counted along the list, entries probed'
          : "counted along the lead key's entries";
    case 'keyed-index':
      return `\`count(*)\` in the ${total.column} index`;
    case 'rows':
      return '`count(*)`';
  }
}

/** A snapshot plan's ways, its total a million rows, a metadata search's counts answered few and many. */
function snapshotTexts(dialect: Dialect, plan: SnapshotPlan): Array<{ plan: string; total: string }> {
  const offset = { page: 0, perPage: 15, offset: DEEP_OFFSET };
  const counted = searchesMetadata(plan.list.query)
    ? [fewEntries, manyEntries].map((c) => countedMetadataPlan(plan, c, DEFAULT_TUNING, MILLION, offset))
    : [plan];
  return counted.map((p) => {
    const rows = planRows(dialect, DEFAULT_TUNING, p, MILLION, offset)!;
    const read = rows.classesFirst ? `${code('classes')} where cheaper, else ${code(rows.read)}` : code(rows.read);
    const metadata = p.rows.metadata ? ('probe' in p.rows.metadata ? ', entries probed' : ', driven by the entries') : '';
    return { plan: read + metadata, total: totalText(p.total) };
  });
}

function planTexts(dialect: Dialect, plan: PagePlan): Array<{ plan: string; total: string }> {
  switch (plan.way) {
    case 'entries':
      return [{ plan: code('entries'), total: totalText({ from: 'metadata', count: 'entries' }) }];
    case 'range-choice':
      return [{ plan: `${code('offset')}: the walk or the range's index, chosen by its counts in the statement`, total: totalText({ from: 'list_buckets' }) }];
    case 'metadata-choice':
      return [{ plan: `${code('offset')}: an entries probe or drive, chosen by its counts in the statement`, total: 'chosen by its counts in the statement' }];
    case 'buckets':
      return [{ plan: plan.search.sortKeys ? `${code('buckets')} over the amount classes` : code('buckets'), total: totalText(plan.total) }];
    case 'offset': {
      const { walk, keyed, metadata } = plan.rows;
      const way = walk === false ? code('sorted-ids') : code('offset');
      const how = [
        walk === true ? "walking the sort's index" : '',
        keyed !== undefined && walk === undefined ? `in the ${keyed} index` : '',
        metadata ? ('probe' in metadata ? 'entries probed' : 'driven by the entries') : '',
        plan.skipInIndex ? 'skipped in the index alone' : '',
      ].filter(Boolean);
      return [{ plan: how.length ? `${way}, ${how.join(', ')}` : way, total: totalText(plan.total) }];
    }
    case 'snapshot':
      return snapshotTexts(dialect, plan);
  }
}

/** Every plan a shape gets on a dialect, each count answered few and many. */
function plansOf(dialect: Dialect, s: Shape): Array<{ plan: string; total: string }> {
  const table = s.table ?? 'payments';
  const spec = table === 'accounts' ? accountListSpec : paymentListSpec;
  const query = parseListQuery(spec, parseQueryString(s.query) as RawListQuery);
  const scope: ListScope = { tenantId: 'ten_x', ...(s.account ? { accountId: 'acc_x' } : {}) };
  const offset = s.depth === 'first' ? 0 : DEEP_OFFSET;
  const request = pageRequestOf(dialect, DEFAULT_TUNING, table, scope, query, { page: offset / 15 + 1, perPage: 15, offset });
  const found: Array<{ plan: string; total: string }> = [];
  const explore = (counts: PlanCounts) => {
    const question = nextQuestion(request, counts);
    if (!question) return found.push(...planTexts(dialect, planPage(request, counts)));
    for (const answer of answers(question)) explore({ ...counts, ...answer });
  };
  explore({});
  return found.filter((f, i) => found.findIndex((g) => g.plan === f.plan && g.total === f.total) === i);
}

const joined = (texts: string[]) => [...new Set(texts)].join('; or ');

/** What the counters a plan reads cost every create, once folded (counters/writeBudget.ts, asserted by rowsPerWrite.e2e). */
function keptText(plans: string[], totals: string[]): string {
  const kept: string[] = [];
  const buckets = totals.some((t) => t.includes('bucket runs')) || plans.some((p) => p.includes('buckets') || p.includes('classes'));
  if (buckets || totals.some((t) => t.includes('list_counts'))) kept.push(`${FOLDED_ROWS_PER_CREATE.list_counts} \`list_counts\``);
  if (buckets) kept.push(`${FOLDED_ROWS_PER_CREATE.list_buckets} \`list_buckets\``);
  if (totals.some((t) => t.includes('metadata') || t.includes('entries')))
    kept.push(`${FOLDED_ROWS_PER_CREATE.metadata_value_counts} \`metadata_value_counts\` row per metadata key`);
  return kept.join(' + ') || 'none';
}

const cell = (text: string) => text.replaceAll('|', '\\|');

export function planTable(): string {
  const rows = SHAPES.map((s) => {
    const sqlite = plansOf('sqlite', s);
    const postgres = plansOf('postgres', s);
    const totals = [...sqlite, ...postgres].map((p) => p.total);
    const path = `${s.account ? '/v3/accounts/{id}/payments' : `/v3/${s.table ?? 'payments'}`}?${s.query}`;
    const page = s.depth === 'first' ? 'page 1' : 'a page at 40 %';
    return `| ${cell(s.shape)}: \`${cell(path)}\`, ${page} | ${cell(joined(sqlite.map((p) => p.plan)))} | ${cell(joined(postgres.map((p) => p.plan)))} | ${cell(s.index)} | ${cell(joined(totals))} | ${cell(
      keptText(
        [...sqlite, ...postgres].map((p) => p.plan),
        totals,
      ),
    )} |`;
  });
  return [
    START,
    '| Request | Plan on SQLite (`X-Page-Strategy`) | Plan on PostgreSQL | Index read | Total from | Counter rows a create adds (folded) |',
    '|---|---|---|---|---|---|',
    ...rows,
    END,
  ].join('\n');
}

/** docs/performance.md with its plan table replaced by the planner's. */
export function performanceWithPlanTable(doc: string): string {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error('docs/performance.md lacks the plan table markers');
  return doc.slice(0, start) + planTable() + doc.slice(end + END.length);
}

if (import.meta.main) writeFileSync(PERFORMANCE, performanceWithPlanTable(readFileSync(PERFORMANCE, 'utf8')));
