/** ISO 4217 codes as the runtime's ICU knows them: no hand-kept list to drift. */
const ISO_4217 = new Set(Intl.supportedValuesOf('currency'));

export function isIso4217(code: string): boolean {
  return ISO_4217.has(code);
}
