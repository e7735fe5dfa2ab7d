import { describe, expect, it } from 'vitest';
import type { ListQuery } from '../../src/listquery/parseListQuery.ts';
import { probeIsCheaper, totalIsEntryCount, withMetadataLead, withMetadataProbed } from '../../src/listing/metadataPlans.ts';
import { metadataCountOf } from '../../src/listing/metadataPlanStatement.ts';

const channel = { column: 'payment_metadata', match: 'metadata' as const, key: 'channel', values: ['web'] };
const tier = { column: 'payment_metadata', match: 'metadata' as const, key: 'tier', values: ['gold', 'silver'] };
const byTime = [{ column: 'created_at', direction: 'desc' as const }];
const tenant = { tenantId: 'ten_x' };

describe('metadata search plans (metadataPlans.ts)', () => {
  it('walks the list’s index for a value many records hold, drives from the entries for a rare one', () => {
    // 1M payments: a fifteenth hold the value (the bench's channel=web), a thousandth (tier=gold).
    expect(probeIsCheaper({ size: 1_000_000, entries: 66_482 }, 0, 10)).toBe(true);
    expect(probeIsCheaper({ size: 1_000_000, entries: 1_010 }, 0, 10)).toBe(false);
    // A deep page of the common value: (skip + per_page) × size ÷ entries rows walked against the entries driven.
    expect(probeIsCheaper({ size: 1_000_000, entries: 66_482 }, 6_640, 10)).toBe(true);
    expect(probeIsCheaper({ size: 1_000_000, entries: 66_482 }, 9_000, 10)).toBe(false);
    // A value no record has: nothing to walk towards.
    expect(probeIsCheaper({ size: 1_000_000, entries: 0 }, 0, 10)).toBe(false);
  });

  it('takes the total from the entry count only when the search of one key is the whole list', () => {
    expect(totalIsEntryCount(tenant, { conditions: [channel], sort: byTime })).toBe(true);
    expect(totalIsEntryCount(tenant, { conditions: [channel, tier], sort: byTime })).toBe(false);
    expect(totalIsEntryCount(tenant, { conditions: [channel, { column: 'status', match: 'in', values: ['failed'] }], sort: byTime })).toBe(false);
    expect(totalIsEntryCount({ ...tenant, accountId: 'acc_x' }, { conditions: [channel], sort: byTime })).toBe(false);
  });

  it('counts other totals along the fewer: the counted slice probed, or the fewest entries', () => {
    const failed: ListQuery = { conditions: [channel, { column: 'status', match: 'in', values: ['failed'] }], sort: byTime };
    expect(metadataCountOf(tenant, { conditions: [channel], sort: byTime }, { entries: 9, lead: 0, slice: null })).toBe('entries');
    expect(metadataCountOf(tenant, failed, { entries: 66_482, lead: 0, slice: 89_373 })).toEqual({ lead: 0 });
    expect(metadataCountOf({ ...tenant, accountId: 'acc_x' }, { conditions: [channel], sort: byTime }, { entries: 66_482, lead: 0, slice: 1_000 })).toBe(
      'probe',
    );
    expect(metadataCountOf(tenant, { conditions: [channel, tier], sort: byTime }, { entries: 1_010, lead: 1, slice: null })).toEqual({ lead: 1 });
  });

  it('writes the search as probes, or drives from one key with the others probed, matching the same rows', () => {
    const query: ListQuery = { conditions: [channel, { column: 'status', match: 'in', values: ['failed'] }, tier], sort: byTime };
    const written = (q: ListQuery) => q.conditions.map((c) => (c.match === 'metadata' ? (c.written ?? 'ids') : c.match));
    expect(written(withMetadataProbed(query))).toEqual(['probe', 'in', 'probe']);
    expect(written(withMetadataLead(query, 1))).toEqual(['probe', 'in', 'ids']);
    expect(written(withMetadataLead(query, 0))).toEqual(['ids', 'in', 'probe']);
  });
});
