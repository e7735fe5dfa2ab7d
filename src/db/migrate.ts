import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { Database, Dialect } from './schema.ts';
import { initialMigration } from './migrations/0001_initial.ts';
import { idempotencyMigration } from './migrations/0002_idempotency.ts';
import { listCountsMigration } from './migrations/0003_list_counts.ts';
import { resourceJsonMigration } from './migrations/0004_resource_json.ts';
import { accountStatusIndexMigration } from './migrations/0005_account_status_index.ts';
import { listBucketsMigration } from './migrations/0006_list_buckets.ts';
import { bucketLevelsMigration } from './migrations/0007_bucket_levels.ts';
import { counterShardsMigration } from './migrations/0008_counter_shards.ts';
import { foldedTextMigration } from './migrations/0009_folded_text.ts';
import { seedRunsMigration } from './migrations/0010_seed_runs.ts';
import { refundReasonMigration } from './migrations/0011_refund_reason.ts';
import { apiKeyLifecycleMigration } from './migrations/0012_api_key_lifecycle.ts';
import { eventsAndWebhooksMigration } from './migrations/0013_events_and_webhooks.ts';
import { orderedDeliveriesMigration } from './migrations/0015_ordered_deliveries.ts';
import { metadataEntriesMigration } from './migrations/0016_metadata_entries.ts';
import { tenantWritePositionsMigration } from './migrations/0017_tenant_write_positions.ts';
import { countedDimensionsMigration } from './migrations/0018_counted_dimensions.ts';
import { amountInCreatedIndexesMigration } from './migrations/0019_amount_in_created_indexes.ts';
import { metadataValueCountsMigration } from './migrations/0020_metadata_value_counts.ts';
import { metadataValueCountsByStatusMigration } from './migrations/0024_metadata_value_counts_by_status.ts';
import { amountClassBucketsMigration } from './migrations/0021_amount_class_buckets.ts';
import { oneDigitAmountClassesMigration } from './migrations/0022_one_digit_amount_classes.ts';
import { metadataEntriesInCreatedOrderMigration } from './migrations/0023_metadata_entries_in_created_order.ts';
import { twoDigitAmountClassesMigration } from './migrations/0025_two_digit_amount_classes.ts';
import { amountIndexesCarryCreatedAtMigration } from './migrations/0026_amount_indexes_carry_created_at.ts';
import { last4IndexCarriesFiltersMigration } from './migrations/0027_last4_index_carries_filters.ts';
import { dimensionIndexesCarryDimensionsMigration } from './migrations/0028_dimension_indexes_carry_dimensions.ts';
import { sqliteDimensionIndexesCarryDimensionsMigration } from './migrations/0029_sqlite_dimension_indexes_carry_dimensions.ts';
import { paymentEntriesCarryDimensionsMigration } from './migrations/0030_payment_entries_carry_dimensions.ts';
import { pairBucketsMigration } from './migrations/0031_pair_buckets.ts';
import { paymentEntriesCarryStatusMigration } from './migrations/0032_payment_entries_carry_status.ts';
import { listChangesMigration } from './migrations/0033_list_changes.ts';
import { tenantPinnedSweepsMigration } from './migrations/0035_tenant_pinned_sweeps.ts';
import { coarserCounterLevelsMigration } from './migrations/0036_coarser_counter_levels.ts';

/**
 * How the stored `resource` of every row was rendered: the frozen renderers of the latest
 * migration that re-rendered them (writes since store the live renderers' output). The live
 * renderers must render exactly this (test/db/storedRenderers.test.ts); changing them takes a
 * new migration that re-renders the stored rows and takes this place.
 */
export const storedRenderers = { payments: refundReasonMigration.renders.payments, accounts: resourceJsonMigration.renders.accounts };

export function migrationsFor(dialect: Dialect): Record<string, Migration> {
  return {
    '0001_initial': initialMigration(dialect),
    '0002_idempotency': idempotencyMigration(dialect),
    '0003_list_counts': listCountsMigration(dialect),
    '0004_resource_json': resourceJsonMigration,
    '0005_account_status_index': accountStatusIndexMigration,
    '0006_list_buckets': listBucketsMigration(dialect),
    '0007_bucket_levels': bucketLevelsMigration(dialect),
    '0008_counter_shards': counterShardsMigration(dialect),
    '0009_folded_text': foldedTextMigration(dialect),
    '0010_seed_runs': seedRunsMigration(dialect),
    '0011_refund_reason': refundReasonMigration,
    '0012_api_key_lifecycle': apiKeyLifecycleMigration(dialect),
    '0013_events_and_webhooks': eventsAndWebhooksMigration(dialect),
    '0015_ordered_deliveries': orderedDeliveriesMigration(dialect),
    '0016_metadata_entries': metadataEntriesMigration(dialect),
    '0017_tenant_write_positions': tenantWritePositionsMigration(dialect),
    '0018_counted_dimensions': countedDimensionsMigration(dialect),
    '0019_amount_in_created_indexes': amountInCreatedIndexesMigration(dialect),
    '0020_metadata_value_counts': metadataValueCountsMigration(dialect),
    '0021_amount_class_buckets': amountClassBucketsMigration(dialect),
    '0022_one_digit_amount_classes': oneDigitAmountClassesMigration(dialect),
    '0023_metadata_entries_in_created_order': metadataEntriesInCreatedOrderMigration(dialect),
    '0024_metadata_value_counts_by_status': metadataValueCountsByStatusMigration(dialect),
    '0025_two_digit_amount_classes': twoDigitAmountClassesMigration(dialect),
    '0026_amount_indexes_carry_created_at': amountIndexesCarryCreatedAtMigration(dialect),
    '0027_last4_index_carries_filters': last4IndexCarriesFiltersMigration(dialect),
    '0028_dimension_indexes_carry_dimensions': dimensionIndexesCarryDimensionsMigration(dialect),
    '0029_sqlite_dimension_indexes_carry_dimensions': sqliteDimensionIndexesCarryDimensionsMigration(dialect),
    '0030_payment_entries_carry_dimensions': paymentEntriesCarryDimensionsMigration(dialect),
    '0031_pair_buckets': pairBucketsMigration(dialect),
    '0032_payment_entries_carry_status': paymentEntriesCarryStatusMigration(dialect),
    '0033_list_changes': listChangesMigration(dialect),
    '0035_tenant_pinned_sweeps': tenantPinnedSweepsMigration(dialect),
    '0036_coarser_counter_levels': coarserCounterLevelsMigration(dialect),
  };
}

/** The migrator over this project's migrations (tests also step it to a given version). */
export async function migratorFor(db: Kysely<Database>, dialect: Dialect): Promise<Migrator> {
  const provider: MigrationProvider = { getMigrations: async () => migrationsFor(dialect) };
  // Kysely finds its bookkeeping tables by introspecting every schema; on PostgreSQL, pin them
  // to the schema in use so databases with several schemas (tests, side-by-side copies) work.
  const migrationTableSchema =
    dialect === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0].schema : undefined;
  return new Migrator({ db, provider, migrationTableSchema });
}

/** Migrating failed: in which migration (undefined: in the migrator's own bookkeeping, before any), and why (the database's error as the cause). */
export class MigrationFailed extends Error {
  readonly migration: string | undefined;
  constructor(migration: string | undefined, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(migration ? `migration ${migration} failed: ${why}` : `migrating failed before any migration ran: ${why}`, { cause });
    this.name = 'MigrationFailed';
    this.migration = migration;
  }
}

/** Brings the schema up to date; safe to run on every start (already-applied steps are skipped). Returns the names applied now. */
export async function migrateToLatest(db: Kysely<Database>, dialect: Dialect): Promise<string[]> {
  const { error, results } = await (await migratorFor(db, dialect)).migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error) throw new MigrationFailed(failed?.migrationName, error);
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
