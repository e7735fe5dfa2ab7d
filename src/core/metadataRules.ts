/**
 * What metadata may hold, one rule for writing it (accountWriteSchemas.ts) and for searching by it
 * (`filter[metadata][key]`, listQuerySchema.ts): a key that cannot be written cannot be searched.
 */
export const METADATA_LIMITS = { keys: 50, keyLength: 40, valueLength: 500 };

/** A metadata key: 1–40 letters, digits or `_ . : -`. */
export const METADATA_KEY_PATTERN = `^[A-Za-z0-9_.:-]{1,${METADATA_LIMITS.keyLength}}$`;

/** The key rule as a sentence (the `invalid_key` code's meaning, issueCodes.ts). */
export const METADATA_KEY_RULE = `1–${METADATA_LIMITS.keyLength} letters, digits or _ . : -`;
