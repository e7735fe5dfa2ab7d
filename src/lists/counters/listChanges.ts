import type { Write } from '../../db/writeTransaction.ts';
import type { CountedList } from './countedSlices.ts';

/** A record as the counts see it on one side of a write: its status, amount (payments) and metadata. */
export interface ChangeSide {
  status: string;
  amount?: number;
  metadata: string | Record<string, string>;
}

/** What one write changed in a counted list (migration 0033): `before` absent for a create, `after` for a delete. */
export interface ListChange {
  list: Exclude<CountedList, 'events'>;
  recordId: string;
  /** The record's dimensions that never change ('' where the list has none). */
  accountId?: string;
  currency: string;
  cardBrand?: string;
  /** Payments: when the record was created (its place in created_at order). */
  createdAt?: string;
  before?: ChangeSide;
  after?: ChangeSide;
  /** The types of the events the write recorded (counted in the events list). */
  events: readonly string[];
}

const metadataText = (m: ChangeSide['metadata']) => (typeof m === 'string' ? m : JSON.stringify(m));

/**
 * Records a write's change to the lists' counts as one row, in its transaction (on PostgreSQL held to go with the
 * write's events: decision 0092): the folder (countFolder.ts) adds it to the counts later, and until then every read
 * adds it itself (changeTail.ts), so totals are exact at once while a write touches one row, not one per count.
 */
export async function recordChange(write: Write, tenantId: string, change: ListChange): Promise<void> {
  const { before, after } = change;
  await write.hold(
    write.trx.insertInto('list_changes').values({
      tenant_id: tenantId,
      list: change.list,
      record_id: change.recordId,
      account_id: change.accountId ?? '',
      currency: change.currency,
      card_brand: change.cardBrand ?? '',
      created_at: change.createdAt ?? null,
      before_status: before?.status ?? null,
      before_amount: before?.amount ?? null,
      before_metadata: before ? metadataText(before.metadata) : null,
      after_status: after?.status ?? null,
      after_amount: after?.amount ?? null,
      after_metadata: after ? metadataText(after.metadata) : null,
      events: JSON.stringify(change.events),
    }),
  );
  write.changed(tenantId);
}
