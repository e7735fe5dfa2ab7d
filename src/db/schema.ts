import type { ColumnType, Generated } from 'kysely';

/** Table shapes as Kysely sees them. Timestamps travel as RFC 3339 UTC strings on both dialects. */
export interface TenantTable {
  id: string;
  name: string;
  created_at: string;
  /** How many webhook endpoints it has (migration 0035): the sender sweeps the tenants that have any. */
  webhook_endpoints: Generated<number>;
}

export interface ApiKeyTable {
  id: string;
  tenant_id: string;
  key_hash: string;
  key_prefix: string;
  scopes: string;
  created_at: string;
  revoked_at: string | null;
  expires_at: string | null;
  last_used_at: string | null;
  /** The prefix of the key a rotation made to replace this one. */
  replaced_by: string | null;
}

export interface AccountTable {
  id: string;
  tenant_id: string;
  name: string;
  email: string;
  currency: string;
  status: string;
  /** JSON text on SQLite, jsonb on PostgreSQL (arrives parsed). */
  metadata: string | Record<string, string>;
  created_at: string;
  updated_at: string;
  /** The API representation as JSON text, rendered on every write (migration 0004). */
  resource: string;
  /** `name` and `email` case-folded for the case-insensitive filters, written with `resource` (migration 0009, src/lists/request/caseFold.ts). */
  name_folded: string;
  email_folded: string;
}

export interface PaymentTable {
  id: string;
  tenant_id: string;
  account_id: string;
  amount: number;
  currency: string;
  status: string;
  amount_refunded: number;
  /** The reason given with the latest refund that gave one (migration 0011). */
  refund_reason: string | null;
  method: string;
  card_brand: string;
  card_last4: string;
  card_exp_month: number;
  card_exp_year: number;
  card_fingerprint: string;
  description: string | null;
  reference: string | null;
  failure_code: string | null;
  failure_message: string | null;
  metadata: string | Record<string, string>;
  captured_at: string | null;
  created_at: string;
  updated_at: string;
  /** The API representation as JSON text, rendered on every write (migration 0004). */
  resource: string;
}

export interface IdempotencyKeyTable {
  tenant_id: string;
  key: string;
  request_hash: string;
  locked_until: string | null;
  response_status: number | null;
  response_body: string | null;
  response_location: string | null;
  created_at: string;
}

export interface ListCountTable {
  tenant_id: string;
  list: string;
  account_id: string;
  status: string;
  /** Counted dimensions added by migration 0017 ('' = all; src/lists/counters/countedSlices.ts). */
  currency: string;
  card_brand: string;
  /** Which of a counter's rows (migration 0008): writes spread over shards, readers sum them. */
  shard: ColumnType<number, number | undefined, number>;
  n: number;
}

/** Rows of one slice (as list_counts) whose sort key falls in one bucket (src/lists/counters/sortBuckets.ts). */
export interface ListBucketTable {
  tenant_id: string;
  list: string;
  sort_key: string;
  level: number;
  account_id: string;
  status: string;
  currency: string;
  card_brand: string;
  bucket: number;
  /** As list_counts.shard. */
  shard: ColumnType<number, number | undefined, number>;
  n: number;
}

/**
 * What one write changed in the counted lists, not yet folded into the counts (migration 0033,
 * src/lists/counters/listChanges.ts). A side (before, after) is absent (null status) for a create or delete.
 */
export interface ListChangeTable {
  id: Generated<number>;
  tenant_id: string;
  list: string;
  record_id: string;
  account_id: string;
  currency: string;
  card_brand: string;
  created_at: string | null;
  before_status: string | null;
  before_amount: number | null;
  before_metadata: string | Record<string, string> | null;
  after_status: string | null;
  after_amount: number | null;
  after_metadata: string | Record<string, string> | null;
  /** The types of the events the write recorded, as a JSON array. */
  events: string | string[];
  /** When the write recorded it (the fold's lag is the age of the oldest). */
  recorded_at: Generated<string>;
}

/** One run of the `seed` command, identified by its arguments (migration 0010). */
export interface SeedRunTable {
  id: string;
  tenant_id: string;
  seed: string;
  accounts: number;
  payments: number;
  until: string;
  accounts_before: number;
  payments_before: number;
  accounts_done: number;
  payments_done: number;
  started_at: string;
  updated_at: string;
  finished_at: string | null;
}

/** The accounts a tenant had when a seed run started, in the order the run uses them. */
export interface SeedRunAccountTable {
  /** The run's tenant (migration 0035): every statement names it. */
  tenant_id: string;
  run_id: string;
  position: number;
  account_id: string;
  currency: string;
}

/** One event of the outbox (migration 0013): written in the transaction of the change it records. */
export interface EventTable {
  id: string;
  tenant_id: string;
  type: string;
  resource_id: string;
  created_at: string;
  /** The event as the API shows it, JSON text (its `data` is the resource after the change). */
  resource: string;
}

export interface WebhookEndpointTable {
  id: string;
  tenant_id: string;
  url: string;
  /** JSON array of event types, `["*"]` for all. */
  enabled_events: string;
  /** 1 or 0 (an integer on both databases). */
  enabled: number;
  secret: string;
  /** While a rotation's overlap lasts, the old secret signs too. */
  previous_secret: string | null;
  previous_secret_until: string | null;
  consecutive_failures: number;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
  resource: string;
}

export interface WebhookDeliveryTable {
  id: string;
  tenant_id: string;
  endpoint_id: string;
  event_id: string;
  /** pending, succeeded, failed (gave up). */
  status: string;
  attempts: number;
  /** When the sender should try next; null while queued behind an earlier event of its endpoint, and once succeeded or given up. */
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_latency_ms: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  resource: string;
  /** 1: a recorded event's delivery, sent in order per endpoint; 0: a resend, out of band. */
  in_order: number;
  /** When it was first tried: its retry window starts there (null until then). */
  first_attempt_at: string | null;
}

/** One key/value pair of a record's metadata (migration 0016): what metadata search finds records by. */
export interface MetadataEntryTable {
  tenant_id: string;
  key: string;
  value: string;
  /** The record's created_at (migration 0023): the entries of a value in the list's default order. */
  created_at: string;
  /** The account's or payment's id. */
  record_id: string;
}

/**
 * A payment's entry also carries the payment's currency, card_brand and amount (migration 0030): a
 * search beside those filters is tested in the entries, no payment read.
 */
export interface PaymentMetadataEntryTable extends MetadataEntryTable {
  currency: string;
  card_brand: string;
  amount: number;
  /** The payment's status (migration 0032): rewritten with it. */
  status: string;
}

/** How many of a tenant's records of a list hold a metadata key's value, one shard's share (migration 0020). */
export interface MetadataValueCountTable {
  tenant_id: string;
  list: 'accounts' | 'payments';
  key: string;
  value: string;
  /** The records' status (migration 0024). */
  status: string;
  shard: number;
  n: number;
}

/** How far the primary's WAL had reached after a tenant's last acknowledged write (bytes from 0/0). */
export interface TenantWritePositionTable {
  tenant_id: string;
  position: number;
}

export interface Database {
  tenants: TenantTable;
  api_keys: ApiKeyTable;
  accounts: AccountTable;
  payments: PaymentTable;
  idempotency_keys: IdempotencyKeyTable;
  list_counts: ListCountTable;
  list_buckets: ListBucketTable;
  list_changes: ListChangeTable;
  seed_runs: SeedRunTable;
  seed_run_accounts: SeedRunAccountTable;
  events: EventTable;
  webhook_endpoints: WebhookEndpointTable;
  webhook_deliveries: WebhookDeliveryTable;
  account_metadata: MetadataEntryTable;
  payment_metadata: PaymentMetadataEntryTable;
  tenant_write_positions: TenantWritePositionTable;
  metadata_value_counts: MetadataValueCountTable;
}

export type Dialect = 'sqlite' | 'postgres';
