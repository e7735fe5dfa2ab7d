/**
 * The machine codes a 422 gives beside each sentence (`codes`), once, with what each means.
 * Sentences may be reworded; a code, once here, keeps its meaning. docs/errors.md lists them all
 * (test/core/issueCodes.test.ts keeps the two in step).
 */
export const ISSUE_CODES = {
  // Any body field, read from its schema
  required: 'a required field is missing',
  unknown_field: 'a field this request does not take (the sentence lists those it does)',
  wrong_type: 'a value of the wrong JSON type (text for a number, say)',
  wrong_length: 'text too short or too long',
  out_of_range: 'a number (or page × per_page) outside its range',
  not_allowed: 'a value outside the listed ones (a status, say)',
  invalid_format: 'text not in the expected form',
  empty: 'a change that changes nothing (PATCH with no field)',
  too_many_keys: 'more metadata keys than allowed',
  invalid_key: 'a metadata key that is not 1–40 letters, digits or _ . : -',
  invalid_text: 'text that is not valid Unicode (a lone surrogate)',
  invalid: 'anything else the schema refused',
  // Accounts and payments
  invalid_name: 'a name that is empty, only spaces or over 200 characters',
  invalid_email: 'not an email address',
  invalid_currency: 'not a three-letter code in capitals',
  unknown_currency: 'not an ISO 4217 currency',
  unsupported_currency: 'a currency payments are not taken in',
  unknown_account: 'not an account of this API key’s tenant',
  invalid_card_number: 'a card number of the wrong form, length or check digit',
  unsupported_card_brand: 'a card number of no supported brand',
  card_expired: 'an expiry in the past',
  invalid_cvc: 'a CVC of the wrong length for the card',
  exceeds_authorized: 'a capture of more than was authorized',
  exceeds_refundable: 'a refund of more than is left to refund',
  invalid_idempotency_key: 'an Idempotency-Key that is not 1–255 printable ASCII characters',
  idempotency_key_reused: 'an Idempotency-Key already used with another request',
  // Webhook endpoints
  unsafe_webhook_url: 'a webhook URL that is not https, holds credentials, or points at or resolves to a loopback, private, link-local or metadata address',
  // Query parameters
  invalid_page: 'page is not a whole number of at least 1',
  invalid_per_page: 'per_page is not a whole number from 1 to 5000',
  leading_zero: 'a number written with a leading zero (page=01)',
  repeated_parameter: 'a parameter that takes one value given more than once (page=1&page=2)',
  paging_not_accepted: 'page or per_page given to an export, which sends every matching record',
  unknown_sort: 'a sort field the list does not have',
  repeated_sort: 'a sort field named twice',
  unknown_filter: 'a filter the list does not have',
  malformed_filter: 'a filter given in the wrong form (a range without an operator, say)',
  unknown_operator: 'a range operator other than gte, gt, lte, lt',
  invalid_filter_value: 'a filter value of the wrong form',
  malformed_fields: 'fields given other than as fields[type]=a,b',
  unknown_fields_type: 'fields[type] for a type the request does not return',
  unknown_resource_field: 'a name in fields[type] that is not a field of that type',
  fields_need_expand: 'fields[type] for a type that is only there when expanded, without expand[]',
  unknown_expansion: 'an expand[] value the resource does not offer',
  too_many_values: 'a filter or parameter with too many values',
  too_many_parameters: 'a query string with too many parameters',
  too_deep: 'a parameter name with too many levels of brackets',
  malformed_query: 'a query string that cannot be read',
  invalid_encoding: 'a percent-escape that is not UTF-8',
  unnamed_parameter: 'a parameter without a name',
  malformed_name: 'a parameter name with unbalanced brackets or text after them',
  reserved_name: 'a parameter name using __proto__',
  value_and_keys: 'a parameter given both a value and keys',
} as const;

export type IssueCode = keyof typeof ISSUE_CODES;
