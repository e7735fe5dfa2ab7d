import type { ListSpec } from '../lists/index.ts';
import { EVENT_TYPES } from '../events/eventTypes.ts';

export const eventListSpec = {
  name: 'events',
  filters: {
    type: { kind: 'enum', values: EVENT_TYPES, column: 'type' },
    resource_id: { kind: 'exact', column: 'resource_id' },
    created_at: { kind: 'timeRange', column: 'created_at' },
  },
  sorts: { created_at: 'created_at' },
  defaultSort: 'created_at',
} as const satisfies ListSpec;
