import type { RepresentationOffer } from '../representations/representationQuery.ts';
import { EventSchema } from './eventSchema.ts';

/** What event reads offer: `fields[events]` (an event's `data` is the whole resource it describes; nothing expands). */
export const eventRepresentation: RepresentationOffer = { own: { type: 'events', fields: Object.keys(EventSchema.properties) }, expansions: [] };
