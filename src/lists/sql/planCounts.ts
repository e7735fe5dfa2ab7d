import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { CountQuestion, ListShape, MetadataCounts, PlanCounts, RangedShape } from '../plan/pagePlan.ts';
import { entryLeadCountsSelect } from './entryOrderPage.ts';
import { keyedCounts } from './keyedFilters.ts';
import { metadataShareSelect } from './metadataPlanStatement.ts';
import { rangeShareCompiled } from './pageTemplates.ts';

/** The answer to one of the planner's questions (plan/planPage.ts nextQuestion), read inside `db` (a snapshot or not). */
export async function answerOf(db: Kysely<Database>, question: CountQuestion): Promise<PlanCounts> {
  switch (question.ask) {
    case 'range-share':
      return { rangeShare: await rangeShare(db, question.list) };
    case 'sliver-rows': {
      let rows = 0;
      for (const sliver of question.slivers) rows += (await rangeShare(db, sliver)).covered;
      return { sliverRows: rows };
    }
    case 'keyed': {
      const { table, scope, query } = question.list;
      return { keyed: await keyedCounts(db, table, scope, query, question.condition) };
    }
    case 'metadata':
      return { metadata: await metadataCounts(db, question.list) };
    case 'entry-leads': {
      const { table, scope, query } = question.list;
      return { entryLeads: (await db.executeQuery<Record<string, number | string>>(entryLeadCountsSelect(db, table, scope, query))).rows[0] };
    }
  }
}

/** SQLite: a ranged list's slice and its rows in the buckets wholly inside its range: a few count rows, read inline. */
async function rangeShare(db: Kysely<Database>, list: RangedShape): Promise<{ slice: number; covered: number }> {
  const compiled = rangeShareCompiled(db, list);
  const [row] = (await db.executeQuery<{ slice: number; covered: number }>(compiled)).rows;
  return { slice: Number(row.slice), covered: Number(row.covered) };
}

/** A metadata search's counts (metadataShareSelect): what its plans are chosen from. */
export async function metadataCounts(db: Kysely<Database>, list: ListShape): Promise<MetadataCounts> {
  const counts = await metadataShareSelect(db, list.table, list.scope, list.query).executeTakeFirstOrThrow();
  return {
    entries: Number(counts.entries),
    matches: Number(counts.matches),
    lead: Number(counts.lead),
    size: Number(counts.size),
    slice: counts.slice === null ? null : Number(counts.slice),
  };
}
