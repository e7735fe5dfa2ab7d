import { Type, type Static, type TSchema } from 'typebox';
import { Nullable } from '../../core/schemaTypes.ts';

// Not format: uri: links carry the client's own encoding, which may keep [ and ] unencoded.
const Url = Type.String({ description: 'Absolute URL' });
const NullableUrl = Nullable(Url);

/** The paginated list envelope (contract), around any item schema. */
export function EnvelopeSchema<T extends TSchema>(item: T) {
  return Type.Object({
    data: Type.Array(item),
    links: Type.Object({ first: Url, last: Url, prev: NullableUrl, next: NullableUrl }),
    meta: Type.Object({
      current_page: Type.Integer(),
      from: Nullable(Type.Integer()),
      last_page: Type.Integer(),
      links: Type.Array(Type.Object({ url: NullableUrl, label: Type.String(), active: Type.Boolean() })),
      path: Url,
      per_page: Type.Integer(),
      to: Nullable(Type.Integer()),
      total: Type.Integer(),
    }),
  });
}

const Frame = EnvelopeSchema(Type.Unknown());

/** The envelope the schema describes, around rows of type T (JSON text, when the database rendered them). */
export type Envelope<T> = Omit<Static<typeof Frame>, 'data'> & { data: T[] };

/** A single resource, wrapped like Laravel's JsonResource. */
export function ResourceSchema<T extends TSchema>(item: T) {
  return Type.Object({ data: item });
}
