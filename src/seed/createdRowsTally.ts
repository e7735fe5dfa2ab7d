import {
  accountCountKeys,
  countRows,
  type CountDelta,
  type CountRow,
  BUCKETED_SLICES,
  COUNTED_SLICES,
  DIMENSIONS,
  sliceKeyOf,
  type SliceKey,
  AMOUNT_CLASS_LEVELS,
  amountClassSortKey,
  classesOfAmount,
  levelsOfClass,
  sortValueOf,
  type BucketRow,
  type PaymentPosition,
  BUCKETED_COLUMNS,
  bucketLevels,
  type BucketLevel,
  type SliceKind,
} from '../lists/index.ts';

interface SliceTally extends SliceKey {
  kind: SliceKind;
  /** Per bucketed column (in BUCKETED_COLUMNS order): rows per bucket of the slice's finest level. */
  finest: Array<Map<number, number>>;
}

/** The finest created_at level the amount classes are counted on. */
const CLASS_FINEST = AMOUNT_CLASS_LEVELS[AMOUNT_CLASS_LEVELS.length - 1];

function add<K>(map: Map<K, number>, key: K, n: number): void {
  map.set(key, (map.get(key) ?? 0) + n);
}

/** Adds `n` to `key`: whether the key is new to the map. */
function added<K>(map: Map<K, number>, key: K, n: number): boolean {
  const before = map.get(key);
  map.set(key, (before ?? 0) + n);
  return before === undefined;
}

/** Which of a tally's rows: every one, or only those of one account's slices (account_id set: the ones that grow with the accounts). */
export type TalliedRows = 'all' | 'accounts' | 'tenant';

const COUNTED_WITH_ACCOUNT = COUNTED_SLICES.payments.filter((dims) => dims.includes('account_id'));
const COUNTED_WITHOUT_ACCOUNT = COUNTED_SLICES.payments.filter((dims) => !dims.includes('account_id'));

/**
 * Each bucketed slice as a payment is tallied into it, worked out once rather than per row
 * (a load tallies millions): its dimensions and the finest level of each bucketed column.
 */
const TALLIED_SLICES = BUCKETED_SLICES.map((s) => ({
  dims: s.dims,
  kind: s.kind,
  ofAccount: s.dims.includes('account_id'),
  finest: BUCKETED_COLUMNS.map((column): BucketLevel => {
    const levels = bucketLevels(column, s.kind);
    return levels[levels.length - 1];
  }),
}));

/**
 * The count and bucket deltas of many rows created together, tallied as they come: what the per-row
 * key functions would add up to after mergeDeltas (a test holds them equal), without their objects.
 * Buckets are tallied at the finest level and summed up the nested coarser ones. Account slices grow
 * with the accounts, so a long load writes them out as they pile up (`accountEntries`,
 * `clearAccounts`); the rest is bounded by the few dimension values (decision 0018).
 */
export class CreatedRowsTally {
  readonly #accounts = new Map<string, { status: string; currency: string; n: number }>();
  /** Payments by status, currency and card brand (the tenant's counted slices, account_id ''). */
  readonly #payments = new Map<string, SliceKey & { n: number }>();
  /** Payments by account, status, currency and card brand (the counted slices of one account). */
  readonly #accountPayments = new Map<string, SliceKey & { n: number }>();
  /** Per bucketed slice (TALLIED_SLICES' order), its tallies by the slice's dimension values. */
  readonly #slices = TALLIED_SLICES.map(() => new Map<string, SliceTally>());
  readonly #values: number[] = new Array(BUCKETED_COLUMNS.length);
  /** Amount class counts (amountClassBuckets.ts), by currency ('' for the whole list), then by class (every kind): rows per finest created_at bucket. */
  readonly #classes = new Map<string, Map<string, Map<number, number>>>();
  #accountEntries = 0;

  /** How many entries one account's slices hold (counts by status, currency and card brand; finest buckets): what grows with the accounts. */
  get accountEntries(): number {
    return this.#accountEntries;
  }

  addAccount(a: { status: string; currency: string }): void {
    const key = `${a.status}\u0000${a.currency}`;
    const tally = this.#accounts.get(key);
    if (tally) tally.n++;
    else this.#accounts.set(key, { status: a.status, currency: a.currency, n: 1 });
  }

  addPayment(p: PaymentPosition): void {
    const tenantKey = `${p.status}\u0000${p.currency}\u0000${p.card_brand}`;
    const tenantTally = this.#payments.get(tenantKey);
    if (tenantTally) tenantTally.n++;
    else this.#payments.set(tenantKey, { account_id: '', status: p.status, currency: p.currency, card_brand: p.card_brand, n: 1 });
    const key = sliceText(p);
    const tally = this.#accountPayments.get(key);
    if (tally) tally.n++;
    else {
      this.#accountPayments.set(key, { account_id: p.account_id, status: p.status, currency: p.currency, card_brand: p.card_brand, n: 1 });
      this.#accountEntries++;
    }
    for (let c = 0; c < BUCKETED_COLUMNS.length; c++) this.#values[c] = sortValueOf(p, BUCKETED_COLUMNS[c]);
    for (let s = 0; s < TALLIED_SLICES.length; s++) {
      const { dims, kind, finest, ofAccount } = TALLIED_SLICES[s];
      // A slice's dimension values key its tally (a single dimension's value alone, a pair's joined).
      const key = dims.length === 0 ? '' : dims.length === 1 ? p[dims[0]] : dims.map((d) => p[d]).join('\u0000');
      let tally = this.#slices[s].get(key);
      if (!tally) this.#slices[s].set(key, (tally = { ...sliceKeyOf(p, dims), kind, finest: BUCKETED_COLUMNS.map(() => new Map()) }));
      if (ofAccount) {
        for (let c = 0; c < finest.length; c++) if (added(tally.finest[c], finest[c].of(this.#values[c]), 1)) this.#accountEntries++;
      } else for (let c = 0; c < finest.length; c++) add(tally.finest[c], finest[c].of(this.#values[c]), 1);
    }
    const at = CLASS_FINEST.of(Date.parse(p.created_at));
    const classes = classesOfAmount(p.amount);
    for (const currency of ['', p.currency]) {
      let byClass = this.#classes.get(currency);
      if (!byClass) this.#classes.set(currency, (byClass = new Map()));
      for (const amountClass of classes) {
        let finest = byClass.get(amountClass);
        if (!finest) byClass.set(amountClass, (finest = new Map()));
        add(finest, at, 1);
      }
    }
  }

  /** The count deltas of `which` rows (TalliedRows). */
  countDeltas(which: TalliedRows = 'all'): CountDelta[] {
    const out: CountDelta[] = [];
    if (which !== 'accounts') {
      for (const a of this.#accounts.values()) for (const k of accountCountKeys(a)) out.push({ ...k, delta: a.n });
      for (const p of this.#payments.values()) for (const dims of COUNTED_WITHOUT_ACCOUNT) out.push({ list: 'payments', ...sliceKeyOf(p, dims), delta: p.n });
    }
    if (which !== 'tenant') {
      for (const p of this.#accountPayments.values())
        for (const dims of COUNTED_WITH_ACCOUNT) out.push({ list: 'payments', ...sliceKeyOf(p, dims), delta: p.n });
    }
    return out;
  }

  /**
   * The list_counts rows (of one shard) of one account's slices, in the global order, made one
   * account at a time: countRows(tenantId, countDeltas('accounts')) without its eight deltas an
   * entry all held and sorted at once (a million entries of accounts paid once each are 2.7M).
   */
  *accountCountRows(tenantId: string, shard = 0): Generator<CountRow> {
    const tallies = [...this.#accountPayments.values()].sort((a, b) => compareText(a.account_id, b.account_id));
    for (let from = 0; from < tallies.length; ) {
      let to = from + 1;
      while (to < tallies.length && tallies[to].account_id === tallies[from].account_id) to++;
      const deltas: CountDelta[] = [];
      for (let i = from; i < to; i++)
        for (const dims of COUNTED_WITH_ACCOUNT) deltas.push({ list: 'payments', ...sliceKeyOf(tallies[i], dims), delta: tallies[i].n });
      yield* countRows(tenantId, deltas, shard);
      from = to;
    }
  }

  /** Lets go of what one account's slices hold (once written out: rows('accounts')); the rest is kept. */
  clearAccounts(): void {
    this.#accountPayments.clear();
    TALLIED_SLICES.forEach(({ ofAccount }, s) => {
      if (ofAccount) this.#slices[s].clear();
    });
    this.#accountEntries = 0;
  }

  /**
   * The list_buckets rows (of one shard) the payments add to, of `which` slices (TalliedRows),
   * in the global order (bucketRows over every payment's paymentBucketDeltas gives the same rows
   * in the same order: a test holds them equal), made one slice and level at a time rather than
   * all held and sorted at once: a batch touches a hundred thousand buckets or more.
   */
  *bucketRows(tenantId: string, shard = 0, which: TalliedRows = 'all'): Generator<BucketRow> {
    const slices = this.#slices
      .filter((_, s) => which === 'all' || TALLIED_SLICES[s].ofAccount === (which === 'accounts'))
      .flatMap((bySlice) => [...bySlice.values()])
      .sort((a, b) => DIMENSIONS.reduce((c, d) => c || compareText(a[d], b[d]), 0));
    // The global order (listBuckets.ts): sort key, level, the dimensions, bucket.
    const columns = BUCKETED_COLUMNS.map((sortKey, c) => ({ sortKey, c })).sort((a, b) => compareText(a.sortKey, b.sortKey));
    for (const { sortKey, c } of columns) {
      const levelNumbers = [...new Set((['tenant', 'pair', 'account'] as const).flatMap((kind) => bucketLevels(sortKey, kind).map((l) => l.level)))].sort(
        (a, b) => a - b,
      );
      for (const levelNumber of levelNumbers) {
        for (const slice of slices) {
          const levels = bucketLevels(sortKey, slice.kind);
          const level = levels.find((l) => l.level === levelNumber);
          if (!level) continue;
          yield* levelRows(tenantId, shard, sortKey, level, slice, slice.finest[c], levels[levels.length - 1]);
        }
      }
    }
    if (which !== 'accounts') yield* this.#classRows(tenantId, shard);
  }

  /** The amount class rows, in the global order: after every bucketed column's (their sort keys extend `created_at`), by sort key, level, currency, bucket. */
  *#classRows(tenantId: string, shard: number): Generator<BucketRow> {
    const currencies = [...this.#classes.keys()].sort(compareText);
    const classes = [...new Set([...this.#classes.values()].flatMap((byClass) => [...byClass.keys()]))];
    const sortKeys = classes
      .map((amountClass) => ({ amountClass, sortKey: amountClassSortKey(amountClass) }))
      .sort((a, b) => compareText(a.sortKey, b.sortKey));
    for (const { amountClass, sortKey } of sortKeys) {
      for (const level of levelsOfClass(amountClass)) {
        for (const currency of currencies) {
          // One currency's classes are counted to the day only (levelsOfClass).
          if (currency !== '' && !levelsOfClass(amountClass, true).includes(level)) continue;
          const finest = this.#classes.get(currency)?.get(amountClass);
          if (finest) yield* levelRows(tenantId, shard, sortKey, level, { ...NO_SLICE, currency }, finest, CLASS_FINEST);
        }
      }
    }
  }
}

const NO_SLICE: SliceKey = { account_id: '', status: '', currency: '', card_brand: '' };

/** The list_buckets rows of one sort key, level and slice, from its counts per finest bucket: rolled up (levels nest), zeros dropped, by bucket. */
function* levelRows(
  tenantId: string,
  shard: number,
  sortKey: string,
  level: BucketLevel,
  slice: SliceKey,
  finestCounts: Map<number, number>,
  finest: BucketLevel,
): Generator<BucketRow> {
  const counts = new Map<number, number>();
  for (const [bucket, n] of finestCounts) add(counts, level.of(finest.low(bucket)), n);
  for (const bucket of [...counts.keys()].sort((a, b) => a - b)) {
    const n = counts.get(bucket)!;
    const { account_id, status, currency, card_brand } = slice;
    if (n !== 0)
      yield { tenant_id: tenantId, list: 'payments', sort_key: sortKey, level: level.level, account_id, status, currency, card_brand, bucket, shard, n };
  }
}

function sliceText(k: SliceKey): string {
  return `${k.account_id}\u0000${k.status}\u0000${k.currency}\u0000${k.card_brand}`;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
