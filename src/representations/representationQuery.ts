import { Type, type TSchema } from 'typebox';
import { addFieldError, issue, type FieldErrors } from '../core/problem.ts';

/**
 * Sparse fieldsets and expansion (JSON:API style): `fields[payments]=id,amount,status` keeps those
 * fields of each payment (in the resource's own order), `expand[]=account` puts the payment's
 * account, as GET /v3/accounts/{id} renders it, beside its `account_id`; `fields[accounts]=…`
 * then trims that account. Only `data` changes: links carry the parameters on, meta stays.
 */

/** A resource type a route answers with: its name in `fields[…]` and its fields, in order. */
export interface ResourceType {
  type: string;
  fields: readonly string[];
  /** Its schema, when a fieldset may be cut out of the stored text without parsing it (fieldsetRenderer.ts). */
  schema?: TSchema;
}

/** What `expand[]=<name>` adds to each record: the resource whose id it holds in `idField`. */
export interface Expansion {
  name: string;
  idField: string;
  embeds: ResourceType;
  /** The stored representations of the ids (of the caller's tenant), by id. */
  load(tenantId: string, ids: readonly string[]): Promise<Map<string, string>>;
}

/** What a read offers: its own type, and what it can expand. */
export interface RepresentationOffer {
  own: ResourceType;
  expansions: readonly Expansion[];
}

/** What a request asked for; undefined fields of a type mean all of them. */
export interface RequestedRepresentation {
  fields: Map<string, ReadonlySet<string>>;
  expand: readonly Expansion[];
}

export interface RawRepresentationQuery {
  fields?: unknown;
  expand?: unknown;
}

const typesOf = (offer: RepresentationOffer) => [offer.own, ...offer.expansions.map((e) => e.embeds)];
const list = (names: readonly string[]) => names.join(', ');

/** The expansions named, as given: `expand[]=account` (repeatable) or `expand=account`. */
function expandNames(given: unknown): string[] | undefined {
  if (typeof given === 'string') return [given];
  if (Array.isArray(given) && given.every((name) => typeof name === 'string')) return given;
  return undefined;
}

/**
 * Reads `fields[…]` and `expand` against what the route offers: the request's representation
 * (undefined when it asked for neither: the stored text goes out as it is), and its mistakes,
 * each a sentence naming what exists.
 */
export function readRepresentation(offer: RepresentationOffer, query: RawRepresentationQuery): { wanted?: RequestedRepresentation; errors: FieldErrors } {
  const errors: FieldErrors = {};
  if (query.fields === undefined && query.expand === undefined) return { errors };
  const types = typesOf(offer);
  const fields = new Map<string, ReadonlySet<string>>();
  if (query.fields !== undefined) {
    if (typeof query.fields !== 'object' || query.fields === null || Array.isArray(query.fields)) {
      addFieldError(errors, 'fields', issue('malformed_fields', `must be given per type, as fields[type]=a,b; types here: ${list(types.map((t) => t.type))}`));
    } else {
      for (const [type, given] of Object.entries(query.fields)) {
        const known = types.find((t) => t.type === type);
        const name = `fields[${type}]`;
        if (!known) {
          addFieldError(errors, name, issue('unknown_fields_type', `is not a type this request returns; types here: ${list(types.map((t) => t.type))}`));
          continue;
        }
        if (typeof given !== 'string') {
          addFieldError(
            errors,
            name,
            issue('malformed_fields', `must be one list of field names separated by commas, such as fields[${type}]=${known.fields.slice(0, 2).join(',')}`),
          );
          continue;
        }
        const names = given.split(',');
        const unknown = names.filter((field) => !known.fields.includes(field));
        if (unknown.length > 0) {
          const which = unknown.map((field) => (field === '' ? '(an empty name)' : field));
          addFieldError(
            errors,
            name,
            issue(
              'unknown_resource_field',
              `names ${which.join(', ')}, not ${unknown.length === 1 ? 'a field' : 'fields'} of ${type}; fields of ${type}: ${list(known.fields)}`,
            ),
          );
        } else fields.set(type, new Set(names));
      }
    }
  }
  const expand: Expansion[] = [];
  if (query.expand !== undefined) {
    const names = expandNames(query.expand);
    const offered = offer.expansions.map((e) => e.name);
    const unknown = names?.filter((name) => !offered.includes(name));
    if (names === undefined || (unknown && unknown.length > 0)) {
      const sentence =
        offered.length === 0
          ? 'is not accepted here: nothing in this resource expands'
          : `names ${list(unknown && unknown.length > 0 ? unknown : ['something'])}, which does not expand; here: expand[]=${offered.join(', expand[]=')}`;
      addFieldError(errors, 'expand', issue('unknown_expansion', sentence));
    } else for (const expansion of offer.expansions) if (names.includes(expansion.name)) expand.push(expansion);
  }
  // A trimmed account with nothing expanding into it would be a silent no-op: say so.
  for (const expansion of offer.expansions) {
    if (fields.has(expansion.embeds.type) && !expand.includes(expansion))
      addFieldError(
        errors,
        `fields[${expansion.embeds.type}]`,
        issue('fields_need_expand', `applies to an expanded ${expansion.name}: add expand[]=${expansion.name}`),
      );
  }
  return Object.keys(errors).length > 0 ? { errors } : { wanted: { fields, expand }, errors };
}

/** The query parameters of a read that offers this (validation here is loose: readRepresentation words the errors). */
export function representationQuerySchema(offer: RepresentationOffer) {
  const fields = Object.fromEntries(
    typesOf(offer).map((t) => [
      t.type,
      Type.Optional(
        Type.String({
          pattern: `^(${t.fields.join('|')})(,(${t.fields.join('|')}))*$`,
          description:
            t === offer.own
              ? `Sparse fieldset: only these fields of each ${t.type.replace(/s$/, '')}, comma-separated (in the resource's own order whatever the order given). Fields: ${list(t.fields)}.`
              : `Trims the expanded ${t.type.replace(/s$/, '')} to these fields (needs expand[]). Fields: ${list(t.fields)}.`,
        }),
      ),
    ]),
  );
  const expandable = offer.expansions.map((e) => e.name);
  return {
    fields: Type.Optional(Type.Object(fields, { additionalProperties: false })),
    ...(expandable.length > 0
      ? {
          expand: Type.Optional(
            Type.Union([
              Type.String({ pattern: `^(${expandable.join('|')})$` }),
              Type.Array(Type.String({ pattern: `^(${expandable.join('|')})$` }), { maxItems: expandable.length }),
            ]),
          ),
        }
      : {}),
  };
}
