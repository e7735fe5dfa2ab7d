/**
 * What the pairs' bucket rows (migration 0031, lists/counters/countedSlices.ts) cost a create's write
 * statements: `node scripts/bench/pairCost.ts <sqlite|postgres> <database url> [rounds] [seconds]`
 * on a seeded database (tenant `bench`, as `cli seed --tenant bench` makes it). The statements of
 * one create are captured (writeStatements.ts) and replayed with and without the pairs' rows,
 * alternating round by round: SQLite on one in-process connection, counted per CPU second of
 * this process (a loaded machine swings its wall-clock rate round to round, not its CPU time),
 * PostgreSQL by pgbench with 4 clients (wall clock). Each replay creates payments in the tenant.
 */
import type { CompiledQuery } from 'kysely';
import { captureCreate, type CapturedCreate } from './writeStatements.ts';
import { alternatingRates, benchTenantAndAccount, floorRate, printRatio, sqliteCpuRate } from './writeFloors.ts';

const [dialect, url, roundsText = '10', secondsText = '2'] = process.argv.slice(2) as ['sqlite' | 'postgres', string, string?, string?];
const rounds = Number(roundsText);
const seconds = Number(secondsText);
const sqlitePath = url.replace(/^sqlite:(\/\/)?/, '');

const { tenantId, account } = await benchTenantAndAccount(dialect, url);
const captured = await captureCreate(dialect, url, tenantId, account);
const rate = (statements: CompiledQuery[]) =>
  dialect === 'sqlite' ? Promise.resolve(sqliteCpuRate(sqlitePath, statements, captured, seconds)) : floorRate({ dialect, url }, statements, captured, seconds, 4);
const [withPairs, without] = await alternatingRates(
  rounds,
  () => rate(captured.statements),
  () => rate(captured.withoutPairs),
);
console.log(`${dialect}: bucket rows per create ${captured.rows.now.buckets}, without the pairs ${captured.rows.withoutPairs.buckets}`);
printRatio(dialect, 'the pairs', withPairs, without);
