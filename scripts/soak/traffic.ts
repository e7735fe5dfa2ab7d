/**
 * The soak's fixed mix, one call at a time: lists with random pages, filters and sorts (and
 * walks onward by links.next), single reads, creates (some replayed by Idempotency-Key),
 * captures and refunds of payments the soak itself created. Every call states the one status
 * it must get; anything else is an error.
 */
export interface SoakCall {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  idempotencyKey?: string;
  expect: number;
  kind: string;
  /** Called with the parsed body of an expected answer. */
  after?: (body: any) => void;
}

const STATUSES = ['succeeded', 'failed', 'authorized', 'refunded', 'partially_refunded', 'canceled', 'succeeded,failed'];
const CURRENCIES = ['USD', 'EUR', 'GBP', 'JPY'];
const SORTS = ['created_at', '-created_at', 'amount', '-amount', '-amount,created_at'];
const PER_PAGE = [10, 25, 100];
const CARD = { number: '4242424242424242', exp_month: 12, exp_year: 2031, cvc: '123' };
const DECLINED = { ...CARD, number: '4000000000000002' };

export class SoakTraffic {
  private n = 0;
  private readonly authorized: string[] = [];
  private readonly refundable: Array<{ id: string; amount: number }> = [];
  private readonly nextLinks: string[] = [];
  private readonly recentCreates: Array<{ key: string; body: unknown }> = [];
  private readonly paymentIds: string[];
  private readonly accountIds: string[];
  private readonly random: () => number;

  constructor(accountIds: string[], paymentIds: string[], random: () => number) {
    this.accountIds = accountIds;
    this.paymentIds = paymentIds;
    this.random = random;
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)];
  }

  next(): SoakCall {
    const i = this.n++;
    const roll = this.random();
    if (roll < 0.3) return this.list();
    if (roll < 0.35 && this.nextLinks.length) {
      const link = new URL(this.nextLinks.shift()!);
      return { method: 'GET', path: link.pathname + link.search, expect: 200, kind: 'walk next', after: (b) => this.remember(b) };
    }
    if (roll < 0.42)
      return {
        method: 'GET',
        path: `/v3/accounts/${this.pick(this.accountIds)}/payments?per_page=${this.pick(PER_PAGE)}&page=${1 + Math.floor(this.random() * 5)}&sort=${this.pick(SORTS)}`,
        expect: 200,
        kind: 'account list',
      };
    if (roll < 0.45)
      return { method: 'GET', path: `/v3/accounts?per_page=25&page=${1 + Math.floor(this.random() * 4)}&sort=-name`, expect: 200, kind: 'accounts list' };
    if (roll < 0.58) return { method: 'GET', path: `/v3/payments/${this.pick(this.paymentIds)}`, expect: 200, kind: 'read' };
    if (roll < 0.6) return { method: 'GET', path: `/v3/accounts/${this.pick(this.accountIds)}`, expect: 200, kind: 'read account' };
    if (roll < 0.7 && this.authorized.length) {
      const id = this.authorized.shift()!;
      return {
        method: 'POST',
        path: `/v3/payments/${id}/capture`,
        idempotencyKey: `soak-cap-${id}`,
        expect: 200,
        kind: 'capture',
        after: (b) => this.refundable.push({ id, amount: b.data.amount }),
      };
    }
    if (roll < 0.78 && this.refundable.length) {
      const { id, amount } = this.refundable.shift()!;
      return {
        method: 'POST',
        path: `/v3/payments/${id}/refunds`,
        body: { amount: Math.max(1, Math.floor(amount / 2)) },
        idempotencyKey: `soak-ref-${id}`,
        expect: 200,
        kind: 'refund',
      };
    }
    if (roll < 0.8 && this.recentCreates.length) {
      const replay = this.recentCreates[Math.floor(this.random() * this.recentCreates.length)];
      return { method: 'POST', path: '/v3/payments', body: replay.body, idempotencyKey: replay.key, expect: 201, kind: 'create replay' };
    }
    const capture = this.random() < 0.6;
    const declined = this.random() < 0.05;
    const body = {
      account_id: this.pick(this.accountIds),
      amount: 100 + Math.floor(this.random() * 100_000),
      currency: 'USD',
      reference: `soak-${i}`,
      capture,
      card: declined ? DECLINED : CARD,
    };
    const key = `soak-create-${i}`;
    return {
      method: 'POST',
      path: '/v3/payments',
      body,
      idempotencyKey: key,
      expect: 201,
      kind: 'create',
      after: (b) => {
        this.recentCreates.push({ key, body });
        if (this.recentCreates.length > 200) this.recentCreates.shift();
        if (b.data.status === 'authorized') this.authorized.push(b.data.id);
        if (b.data.status === 'succeeded') this.refundable.push({ id: b.data.id, amount: b.data.amount });
        this.cap();
      },
    };
  }

  private list(): SoakCall {
    const params = [`per_page=${this.pick(PER_PAGE)}`, `sort=${this.pick(SORTS)}`];
    const filter = this.random();
    if (filter < 0.3) params.push(`filter[status]=${this.pick(STATUSES)}`);
    else if (filter < 0.45) params.push(`filter[currency]=${this.pick(CURRENCIES)}`);
    else if (filter < 0.6) params.push(`filter[amount][gte]=${Math.floor(this.random() * 50_000)}`);
    else if (filter < 0.7) params.push(`filter[created_at][gte]=2026-0${1 + Math.floor(this.random() * 9)}-01`);
    params.push(`page=${1 + Math.floor(this.random() * (this.random() < 0.8 ? 10 : 500))}`);
    return { method: 'GET', path: `/v3/payments?${params.join('&')}`, expect: 200, kind: 'list', after: (b) => this.remember(b) };
  }

  private remember(body: any) {
    if (body.links?.next && this.random() < 0.5) this.nextLinks.push(body.links.next);
    this.cap();
  }

  /** The soak must not grow memory of its own: every queue is bounded. */
  private cap() {
    for (const queue of [this.authorized, this.refundable, this.nextLinks] as unknown[][]) if (queue.length > 500) queue.splice(0, queue.length - 500);
  }
}
