import fc from 'fast-check';
import type { CsvColumn } from '../../src/representations/csvColumns.ts';

/**
 * Mostly strings JSON writes without escapes (with the commas and formula starts a cell cares
 * about), now and then one it escapes: a record takes the quick way only when all of its
 * strings are plain, and both ways must be tried often.
 */
const text = fc.oneof(
  { weight: 40, arbitrary: fc.string({ unit: fc.constantFrom('a', 'Z', '7', ' ', ',', '=', '+', '-', '@', '{', '}', ':', '[', 'é', '€', '😀', '\u2028') }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary' }) },
  { weight: 1, arbitrary: fc.constantFrom('"', '\\', '\t', '\r\n', '\u0000', '\u007f') },
);
const number = fc.oneof(
  { weight: 20, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.constantFrom(0, -0, 1e15 - 1, 1e15, 2 ** 53, 1e21, -1e21, 0.5, 1.5e-7) },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
);
const anyValue = fc.oneof(text, number, fc.boolean(), fc.constant(null), fc.dictionary(text, text), fc.array(text, { maxLength: 2 }));
/** Mostly what its kind says, sometimes anything else. */
const valueOfKind = (kind: string) => {
  const usual =
    {
      string: fc.oneof(text, fc.constant(null)),
      integer: fc.oneof(number, fc.constant(null)),
      boolean: fc.oneof(fc.boolean(), fc.constant(null)),
      object: fc.oneof(
        { weight: 10, arbitrary: fc.dictionary(text, text) },
        fc.constant({}),
        fc.constant(null),
        fc.dictionary(text, fc.integer()),
        fc.dictionary(fc.constantFrom('1', '10', 'b', '2'), text),
      ),
    }[kind] ?? anyValue;
  return fc.oneof({ weight: 200, arbitrary: usual }, { weight: 1, arbitrary: anyValue });
};

/**
 * Stored texts (JSON.stringify of a record) laid out as the columns say, then sometimes disturbed:
 * keys reordered, dropped or added, a nested object null. For the renderers that cut values out
 * of a record's text instead of parsing it: both their ways must be taken.
 */
export function recordFor(columns: CsvColumn[]) {
  const fields: Record<string, fc.Arbitrary<unknown>> = {};
  const nested: Record<string, Record<string, fc.Arbitrary<unknown>>> = {};
  for (const column of columns) {
    const [top, inner] = column.path;
    if (inner === undefined) fields[top] = valueOfKind(column.kind);
    else {
      nested[top] ??= {};
      nested[top][inner] = valueOfKind(column.kind);
      fields[top] = fc.constant(undefined);
    }
  }
  for (const [top, inner] of Object.entries(nested))
    fields[top] = fc.oneof({ weight: 30, arbitrary: fc.record(inner) }, { weight: 1, arbitrary: fc.constant(null) });
  const disturbance = fc.oneof({ weight: 12, arbitrary: fc.constant('none') }, fc.constant('reverse'), fc.constant('drop'), fc.constant('extra'));
  return fc.tuple(fc.record(fields), disturbance, fc.nat()).map(([record, how, n]) => {
    const entries = Object.entries(record);
    if (how === 'reverse') entries.reverse();
    if (how === 'drop') entries.splice(n % entries.length, 1);
    if (how === 'extra') entries.splice(n % (entries.length + 1), 0, ['zzz', n]);
    return JSON.stringify(Object.fromEntries(entries));
  });
}
