import type { Dialect } from '../db/schema.ts';
import { col, isoTimestampSql, jsonColumnSql, jsonTextSql } from '../db/jsonSql.ts';

/** The payment resource (paymentSchema.ts) built by the database, field for field. */
export function paymentJsonSql(dialect: Dialect) {
  const ts = (c: string) => isoTimestampSql(dialect, c);
  return jsonTextSql(dialect, [
    ['id', col('id')],
    ['account_id', col('account_id')],
    ['amount', col('amount')],
    ['currency', col('currency')],
    ['status', col('status')],
    ['amount_refunded', col('amount_refunded')],
    ['method', col('method')],
    ['card', [
      ['brand', col('card_brand')],
      ['last4', col('card_last4')],
      ['exp_month', col('card_exp_month')],
      ['exp_year', col('card_exp_year')],
      ['fingerprint', col('card_fingerprint')],
    ]],
    ['description', col('description')],
    ['reference', col('reference')],
    ['failure_code', col('failure_code')],
    ['failure_message', col('failure_message')],
    ['metadata', jsonColumnSql(dialect, 'metadata')],
    ['captured_at', ts('captured_at')],
    ['created_at', ts('created_at')],
    ['updated_at', ts('updated_at')],
  ]);
}
