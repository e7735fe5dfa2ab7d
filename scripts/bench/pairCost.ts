/**
 * What the pairs' bucket rows (migration 0031, counts/countedSlices.ts) cost a create's write
 * statements: `node scripts/bench/pairCost.ts <sqlite|postgres> <database url> [rounds] [seconds]`
 * on a seeded database (tenant `bench`, as `cli seed --tenant bench` makes it). The statements of
 * one create are captured (writeStatements.ts) and replayed with and without the pairs' rows,
 * alternating round by round: SQLite on one in-process connection, counted per CPU second of
 * this process (a loaded machine swings its wall-clock rate round to round, not its CPU time),
 * PostgreSQL by pgbench with 4 clients (wall clock). Each replay creates payments in the tenant.
 */
import type { CompiledQuery } from 'kysely';
import { captureCreate, type CapturedCreate } from './writeStatements.ts';
import { benchTenantAndAccount, floorRate, sqliteCpuRate } from './writeFloors.ts';
import { median } from './median.ts';

const [dialect, url, roundsText = '10', secondsText = '2'] = process.argv.slice(2) as ['sqlite' | 'postgres', string, string?, string?];
const rounds = Number(roundsText);
const seconds = Number(secondsText);
const sqlitePath = url.replace(/^sqlite:(\/\/)?/, '');

const { tenantId, account } = await benchTenantAndAccount(dialect, url);
const captured = await captureCreate(dialect, url, tenantId, account);
const rate = (statements: CompiledQuery[]) =>
  dialect === 'sqlite' ? Promise.resolve(sqliteCpuRate(sqlitePath, statements, captured, seconds)) : floorRate({ dialect, url }, statements, captured, seconds, 4);
const withPairs: number[] = [];
const without: number[] = [];
for (let round = 0; round < rounds; round++) {
  const both = [async () => withPairs.push(await rate(captured.statements)), async () => without.push(await rate(captured.withoutPairs))];
  for (const replay of round % 2 ? both : both.reverse()) await replay();
}
const ratios = withPairs.map((x, i) => x / without[i]);
const unit = dialect === 'sqlite' ? 'creates per CPU second' : 'creates/s (pgbench, 4 clients)';
console.log(`${dialect}: bucket rows per create ${captured.rows.now.buckets}, without the pairs ${captured.rows.withoutPairs.buckets}`);
console.log(`${dialect}: ${unit} with the pairs ${median(withPairs).toFixed(0)}, without ${median(without).toFixed(0)}`);
console.log(`${dialect}: with ÷ without ${median(ratios).toFixed(3)} (rounds ${ratios.map((x) => x.toFixed(2)).join(', ')})`);
