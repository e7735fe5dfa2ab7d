/**
 * `npm run explain -- --help` prints its flags.
 *
 * Prints the plan of every list query shape the API sends (scripts/explain/listQueryShapes.ts)
 * on the database DATABASE_URL points at, as markdown: what docs/query-plans.md records for
 * the benchmark datasets, then the webhook sender's queries (scripts/explain/senderQueries.ts;
 * `--only sender` prints just those). Without --force-indexes the planner chooses freely, as in production.
 */
import { loadConfig } from '../../src/config/loadConfig.ts';
import { openDatabase } from '../../src/db/database.ts';
import { findTenantByName } from '../../src/auth/tenantQueries.ts';
import { explainPlan } from './explainPlan.ts';
import { LIST_SHAPES, shapeQueries } from './listQueryShapes.ts';
import { SENDER_QUERIES } from './senderQueries.ts';
import { parseScriptArgs } from '../support/scriptArgs.ts';

const values = parseScriptArgs(
  { command: 'explain', file: 'scripts/explain/main.ts', hints: { only: 'sender|<part of a list request>' } },
  {
    tenant: { type: 'string', default: 'bench' },
    'force-indexes': { type: 'boolean', default: false },
    only: { type: 'string' },
  },
);
const config = loadConfig();
const db = openDatabase(config.databaseUrl, { createFolder: config.embeddedDefault });
try {
  const tenant = await findTenantByName(db.kysely, values.tenant);
  const tenantId = tenant?.id ?? 'ten_none';
  let flagged = 0;
  for (const shape of LIST_SHAPES.filter((s) => !values.only || s.request.includes(values.only))) {
    console.log(`\n#### \`${shape.request}\`${shape.ordered ? '' : ' (sorts what matches)'}\n`);
    for (const { label, query } of shapeQueries(db.kysely, tenantId, shape, db.dialect)) {
      const plan = await explainPlan(db.kysely, db.dialect, query, { forceIndexes: values['force-indexes'] });
      const flags = [plan.fullScan && 'FULL SCAN', plan.sortBeforeLimit && 'SORT BEFORE LIMIT'].filter(Boolean);
      if (plan.fullScan || (shape.ordered && !label.startsWith('total') && plan.sortBeforeLimit)) flagged++;
      console.log(`${label}${flags.length ? ` — ${flags.join(', ')}` : ''}:\n\n\`\`\`\n${plan.lines.join('\n')}\n\`\`\`\n`);
    }
  }
  if (!values.only || values.only === 'sender') {
    console.log('\n### Webhook sender (every poll)\n');
    for (const { label, indexes, query } of SENDER_QUERIES) {
      const plan = await explainPlan(db.kysely, db.dialect, query(db.kysely), { forceIndexes: values['force-indexes'] });
      const missing = indexes.filter((i) => !plan.indexes.includes(i));
      if (missing.length) flagged++;
      console.log(`${label}${missing.length ? ` — NOT USING ${missing.join(', ')}` : ''}:\n\n\`\`\`\n${plan.lines.join('\n')}\n\`\`\`\n`);
    }
  }
  console.log(`\n${flagged} ${flagged === 1 ? 'query is' : 'queries are'} not served as expected.`);
} finally {
  await db.close();
}
