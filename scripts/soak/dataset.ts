import { mkdirSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { cli } from '../bench/datasets.ts';

export const SOAK_TENANT = 'soak';
export type SoakDialect = 'sqlite' | 'postgres';

const PG_BASE = process.env.SOAK_DATABASE_URL ?? process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface SoakDataset {
  url: string;
  key: string;
  /** Removes the dataset (a soak writes into it, so each run starts from a fresh one). */
  drop(): Promise<void>;
}

/** A fresh dataset built through the CLI (migrate, seed, keys create), as an operator would. */
export async function createSoakDataset(dialect: SoakDialect, accounts: number, payments: number): Promise<SoakDataset> {
  const name = `soak_${Date.now()}_${randomBytes(3).toString('hex')}`;
  let url: string;
  let drop: () => Promise<void>;
  if (dialect === 'sqlite') {
    mkdirSync(resolve('data/soak'), { recursive: true });
    const file = resolve(`data/soak/${name}.sqlite`);
    url = `sqlite:${file}`;
    drop = async () => {
      for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
    };
  } else {
    const admin = new pg.Client({ connectionString: PG_BASE });
    await admin.connect();
    await admin.query(`create schema ${name}`);
    await admin.end();
    url = `${PG_BASE}?options=${encodeURIComponent(`-c search_path=${name}`)}`;
    drop = async () => {
      const cleanup = new pg.Client({ connectionString: PG_BASE });
      await cleanup.connect();
      await cleanup.query(`drop schema ${name} cascade`);
      await cleanup.end();
    };
  }
  await cli(url, 'seed', '--tenant', SOAK_TENANT, '--accounts', String(accounts), '--payments', String(payments), '--seed', 'soak');
  const key = (await cli(url, 'keys', 'create', '--tenant', SOAK_TENANT, '--scopes', 'read,write')).stdout.trim();
  return { url, key, drop };
}
