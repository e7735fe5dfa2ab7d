import { sql, type Kysely } from 'kysely';
import type { StatementGuard } from './guardedStatement.ts';
import type { Database } from './schema.ts';
import { flagged } from './driverFlags.ts';
import { templatesOf } from './statementTemplates.ts';

/** Tables whose rows own a list of other rows (an account its payments, an endpoint its deliveries). */
export type OwningTable = 'accounts' | 'webhook_endpoints';

/**
 * A row of the tenant's as a guard (guardedStatement.ts): a list of what belongs to it is
 * answered only while it is there. On PostgreSQL the statement that reads the list checks it (one
 * round trip, one snapshot); otherwise its check looks it up first, flagged bounded (one row by its
 * primary key: on SQLite read inline, never on a reader). `missing` is what the request answers
 * when it is not there (its 404), thrown by the check.
 */
export function rowGuard(db: Kysely<Database>, table: OwningTable, tenantId: string, id: string, missing: () => unknown): StatementGuard {
  const select = () =>
    templatesOf(db).statement(
      `row guard ${table}`,
      (slot) =>
        // Typed as accounts: every owning table has the two columns read (tenant_id, id).
        db
          .selectFrom(table as 'accounts')
          .select(sql<boolean>`false`.as('noted'))
          .where('tenant_id', '=', slot<string>('tenant'))
          .where('id', '=', slot<string>('id')),
      { tenant: tenantId, id },
    );
  return {
    select: { compile: select },
    held() {},
    async check() {
      if ((await db.executeQuery(flagged({ compile: select }, { bounded: true }))).rows.length === 0) throw missing();
    },
  };
}
