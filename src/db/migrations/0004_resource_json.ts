import { sql, type Kysely } from 'kysely';

const BATCH = 2000;

/** A stored row as this migration reads it: the columns both tables had when it was made. */
type StoredRow = Record<string, unknown> & { id: string; metadata: string | Record<string, string> };

/** Metadata is JSON text on SQLite and parsed jsonb on PostgreSQL. */
function metadataOf(row: StoredRow): Record<string, string> {
  return typeof row.metadata === 'string' ? JSON.parse(row.metadata) : row.metadata;
}

/*
 * The renderers written out as they stood when this migration was made, not imported: a
 * migration must keep meaning what it meant. Later changes to the representation come with a
 * migration of their own that re-renders the stored rows (test/db/resourceRendering.test.ts).
 */
function paymentResource(row: StoredRow) {
  return {
    id: row.id,
    account_id: row.account_id,
    amount: row.amount,
    currency: row.currency,
    status: row.status,
    amount_refunded: row.amount_refunded,
    method: 'card',
    card: {
      brand: row.card_brand,
      last4: row.card_last4,
      exp_month: row.card_exp_month,
      exp_year: row.card_exp_year,
      fingerprint: row.card_fingerprint,
    },
    description: row.description,
    reference: row.reference,
    failure_code: row.failure_code,
    failure_message: row.failure_message,
    metadata: metadataOf(row),
    captured_at: row.captured_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function accountResource(row: StoredRow) {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    currency: row.currency,
    status: row.status,
    metadata: metadataOf(row),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/**
 * Each record keeps its API representation as JSON text, so a 5000-row page is 5000 strings
 * spliced into the envelope (docs/performance.md).
 */
export const resourceJsonMigration = {
  /** What this migration stored, kept as it was (db/migrate.ts: storedRenderers). */
  renders: { payments: paymentResource, accounts: accountResource },
  async up(db: Kysely<unknown>) {
    await sql`alter table payments add column resource text`.execute(db);
    await sql`alter table accounts add column resource text`.execute(db);
    for (const table of ['payments', 'accounts'] as const) {
      const render = resourceJsonMigration.renders[table];
      for (let after = ''; ; ) {
        const { rows } = await sql<StoredRow>`select * from ${sql.table(table)} where id > ${after} order by id limit ${BATCH}`.execute(db);
        if (rows.length === 0) break;
        for (const row of rows) {
          await sql`update ${sql.table(table)} set resource = ${JSON.stringify(render(row))} where id = ${row.id}`.execute(db);
        }
        after = rows[rows.length - 1].id;
      }
    }
  },
};
