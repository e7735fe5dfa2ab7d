import type { CreatedRowsTally } from './createdRowsTally.ts';
import type { RowSink } from './bulkInsert.ts';
import type { SeedAccount } from './seedRows.ts';
import { seedAccounts, seedPayments, type RunBasis } from './seedSequence.ts';

/**
 * The run's accounts `from`..`to` written through the sink, each counted in `tally` as it goes
 * by (the counts of a load are its rows' own, added once with them): the accounts made, for
 * the payments that follow.
 */
export async function sinkSeedAccounts(sink: RowSink, tally: CreatedRowsTally, basis: RunBasis, from: number, to: number): Promise<SeedAccount[]> {
  const made: SeedAccount[] = [];
  await sink.accounts(
    (function* () {
      for (const { row, account } of seedAccounts(basis, from, to)) {
        tally.addAccount(row);
        made.push(account);
        yield row;
      }
    })(),
  );
  return made;
}

/** The run's payments `from`..`to` over `pool` written through the sink, each counted in `tally`. */
export async function sinkSeedPayments(
  sink: RowSink,
  tally: CreatedRowsTally,
  basis: RunBasis,
  pool: readonly SeedAccount[],
  from: number,
  to: number,
): Promise<void> {
  await sink.payments(
    (function* () {
      for (const row of seedPayments(basis, pool, from, to)) {
        tally.addPayment(row);
        yield row;
      }
    })(),
  );
}
