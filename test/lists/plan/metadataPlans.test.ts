import { describe, expect, it } from 'vitest';
import type { ListQuery } from '../../../src/lists/request/parseListQuery.ts';
import {
  probeIsCheaper,
  searchedStatuses,
  totalIsValueCount,
  withMetadataLead,
  withMetadataProbed,
  metadataCountOf,
} from '../../../src/lists/plan/metadataPlans.ts';

const channel = { column: 'payment_metadata', match: 'metadata' as const, key: 'channel', values: ['web'] };
const tier = { column: 'payment_metadata', match: 'metadata' as const, key: 'tier', values: ['gold', 'silver'] };
const byTime = [{ column: 'created_at', direction: 'desc' as const }];
const tenant = { tenantId: 'ten_x' };

describe('metadata search plans (metadataPlans.ts)', () => {
  it('walks the list’s index for a value many records hold, drives from the entries for a rare one', () => {
    // 1M payments: a fifteenth hold the value (the bench's channel=web), a thousandth (tier=gold).
    expect(probeIsCheaper({ size: 1_000_000, entries: 66_482, matches: 66_482 }, 0, 10)).toBe(true);
    expect(probeIsCheaper({ size: 1_000_000, entries: 1_010, matches: 1_010 }, 0, 10)).toBe(false);
    // A deep page of the common value: (skip + per_page) × size ÷ matches rows walked against the entries driven.
    expect(probeIsCheaper({ size: 1_000_000, entries: 66_482, matches: 66_482 }, 6_640, 10)).toBe(true);
    expect(probeIsCheaper({ size: 1_000_000, entries: 66_482, matches: 66_482 }, 9_000, 10)).toBe(false);
    // A value no record has: nothing to walk towards.
    expect(probeIsCheaper({ size: 1_000_000, entries: 0, matches: 0 }, 0, 10)).toBe(false);
  });

  it('goes by the exact matches of a value × status: a common value in a rare status is driven from its entries', () => {
    // channel=web,pos × succeeded at 1M: ~89k of 133k entries match; page 1 walks.
    expect(probeIsCheaper({ size: 1_000_000, entries: 133_000, matches: 89_000 }, 0, 10)).toBe(true);
    // The same value in a status a few hundred of them hold: the walk would read ~1M/300 rows a match; the drive 133k entries.
    expect(probeIsCheaper({ size: 1_000_000, entries: 133_000, matches: 300 }, 100, 10)).toBe(false);
    // No record of the value has the status: nothing to walk towards.
    expect(probeIsCheaper({ size: 1_000_000, entries: 133_000, matches: 0 }, 0, 10)).toBe(false);
  });

  it('takes the total from the value counts when one key is searched over the whole list, alone or with any of some statuses', () => {
    const statuses = { column: 'status', match: 'in' as const, values: ['failed', 'canceled'] };
    expect(totalIsValueCount(tenant, { conditions: [channel], sort: byTime })).toBe(true);
    expect(totalIsValueCount(tenant, { conditions: [channel, statuses], sort: byTime })).toBe(true);
    expect(searchedStatuses({ conditions: [channel, statuses], sort: byTime })).toEqual(['failed', 'canceled']);
    expect(searchedStatuses({ conditions: [channel], sort: byTime })).toBeUndefined();
    expect(totalIsValueCount(tenant, { conditions: [channel, tier], sort: byTime })).toBe(false);
    expect(totalIsValueCount(tenant, { conditions: [channel, statuses, { column: 'currency', match: 'in', values: ['EUR'] }], sort: byTime })).toBe(false);
    expect(totalIsValueCount(tenant, { conditions: [channel, { column: 'currency', match: 'in', values: ['EUR'] }], sort: byTime })).toBe(false);
    expect(totalIsValueCount({ ...tenant, accountId: 'acc_x' }, { conditions: [channel], sort: byTime })).toBe(false);
    expect(totalIsValueCount({ ...tenant, accountId: 'acc_x' }, { conditions: [channel, statuses], sort: byTime })).toBe(false);
  });

  it('counts other totals along the fewer: the counted slice probed, or the fewest entries', () => {
    const failed: ListQuery = { conditions: [channel, { column: 'status', match: 'in', values: ['failed'] }], sort: byTime };
    const eur: ListQuery = { conditions: [channel, { column: 'currency', match: 'in', values: ['EUR'] }], sort: byTime };
    expect(metadataCountOf(tenant, { conditions: [channel], sort: byTime }, { entries: 9, lead: 0, slice: null })).toBe('entries');
    expect(metadataCountOf(tenant, failed, { entries: 66_482, lead: 0, slice: 89_373 })).toBe('entries');
    expect(metadataCountOf(tenant, eur, { entries: 66_482, lead: 0, slice: 489_373 })).toEqual({ lead: 0 });
    expect(metadataCountOf({ ...tenant, accountId: 'acc_x' }, { conditions: [channel], sort: byTime }, { entries: 66_482, lead: 0, slice: 1_000 })).toBe(
      'probe',
    );
    expect(metadataCountOf(tenant, { conditions: [channel, tier], sort: byTime }, { entries: 1_010, lead: 1, slice: null })).toEqual({ lead: 1 });
  });

  it('writes the search as probes, or drives from one key with the others probed from its entries, matching the same rows', () => {
    const query: ListQuery = { conditions: [channel, { column: 'status', match: 'in', values: ['failed'] }, tier], sort: byTime };
    const written = (q: ListQuery) =>
      q.conditions.map((c) =>
        c.match === 'metadata' ? `${c.written ?? 'ids'} ${c.key}${c.heldWith ? ` with ${c.heldWith.map((h) => h.key)}` : ''}` : c.match,
      );
    expect(written(withMetadataProbed(query))).toEqual(['probe channel', 'in', 'probe tier']);
    expect(written(withMetadataLead(query, 1))).toEqual(['in', 'ids tier with channel']);
    expect(written(withMetadataLead(query, 0))).toEqual(['ids channel with tier', 'in']);
    expect(withMetadataLead(query, 0).conditions[0]).toMatchObject({ heldWith: [{ key: tier.key, values: tier.values }] });
    expect(written(withMetadataLead({ ...query, conditions: [tier] }, 0))).toEqual(['ids tier']);
  });
});
