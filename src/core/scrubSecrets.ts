import { utf8SequenceLength } from './utf8.ts';

/**
 * Finds API keys and card numbers in text however a client spelled them, and blanks them out of
 * the text as given. PCI DSS 3.3–3.5 forbid a PAN in any log, and a client controls the encoding
 * (`4392+6617…`, `%34%33…`, double escapes, full-width digits), so the text is read through every
 * layer a reader could undo (percent, `+`, `\uXXXX`, NFKC) and secrets are cut from the original.
 */

/** Redacted spans are replaced by these markers. */
export const REDACTED_KEY = 'apk_[redacted]';
export const REDACTED_NUMBER = '[redacted-number]';

/** Keys are `apk_` + base64url (apiKey.ts); the prefix in any case, since the body is the secret. */
const API_KEY = /apk_[A-Za-z0-9_\-.~/=]*/giu;
/**
 * Card-shaped: at least 12 digits (any script's decimal digits), with up to three characters
 * that are neither letters nor digits between any two (spaces, dashes, dots, slashes, NBSP,
 * zero-width spaces, a mix). No upper bound: digits appended to a number must not hide it.
 */
const CARD_NUMBER = /\p{Nd}(?:[^\p{L}\p{N}]{0,3}\p{Nd}){11,}/gu;

/** Repeated percent-decoding stops after this many layers (`%252534` is three). */
const MAX_LAYERS = 4;

/** One character of a reading of the text, and the span of the original text it came from. */
interface Unit {
  text: string;
  start: number;
  end: number;
}

function unitsOf(text: string): Unit[] {
  const units: Unit[] = [];
  let at = 0;
  for (const ch of text) {
    units.push({ text: ch, start: at, end: at + ch.length });
    at += ch.length;
  }
  return units;
}

const isHex = (unit: Unit | undefined) => unit !== undefined && /^[0-9A-Fa-f]$/.test(unit.text);

/** The bytes of consecutive `%XX` escapes from `i`, and where each starts. */
function escapedBytes(units: Unit[], i: number): { bytes: number[]; starts: number[] } {
  const bytes: number[] = [];
  const starts: number[] = [];
  while (units[i]?.text === '%' && isHex(units[i + 1]) && isHex(units[i + 2])) {
    bytes.push(parseInt(units[i + 1].text + units[i + 2].text, 16));
    starts.push(i);
    i += 3;
  }
  return { bytes, starts };
}

/** One layer undone: `+` → space, `%XX` sequences that are UTF-8 → their characters, `\uXXXX` → its code unit. */
function decodeOnce(units: Unit[]): Unit[] {
  const out: Unit[] = [];
  for (let i = 0; i < units.length; ) {
    const unit = units[i];
    if (unit.text === '+') {
      out.push({ ...unit, text: ' ' });
      i++;
    } else if (unit.text === '%') {
      const { bytes, starts } = escapedBytes(units, i);
      if (bytes.length === 0) {
        out.push(unit);
        i++;
        continue;
      }
      for (let k = 0; k < bytes.length; ) {
        const length = utf8SequenceLength(bytes, k);
        if (length === 0) {
          // Not UTF-8: the escape stays as written (and may still be a separator between digits).
          for (const at of [starts[k], starts[k] + 1, starts[k] + 2]) out.push(units[at]);
          k++;
          continue;
        }
        const last = units[starts[k + length - 1] + 2];
        out.push({ text: Buffer.from(bytes.slice(k, k + length)).toString('utf8'), start: units[starts[k]].start, end: last.end });
        k += length;
      }
      i = starts[starts.length - 1] + 3;
    } else if (unit.text === '\\' && units[i + 1]?.text === 'u' && [2, 3, 4, 5].every((d) => isHex(units[i + d]))) {
      const hex = units
        .slice(i + 2, i + 6)
        .map((u) => u.text)
        .join('');
      out.push({ text: String.fromCharCode(parseInt(hex, 16)), start: unit.start, end: units[i + 5].end });
      i += 6;
    } else {
      out.push(unit);
      i++;
    }
  }
  return out;
}

/** Spans of the original text that hold a key or a card number in this reading of it. */
function secretSpans(units: Unit[], found: Array<{ start: number; end: number; marker: string }>): void {
  // Each unit read in its compatibility form (full-width `４` is `4`), mapped back unit by unit.
  const owner: number[] = [];
  let reading = '';
  units.forEach((unit, index) => {
    const text = unit.text.length === 1 && unit.text < '\x80' ? unit.text : unit.text.normalize('NFKC');
    reading += text;
    for (let k = 0; k < text.length; k++) owner.push(index);
  });
  for (const [pattern, marker] of [
    [API_KEY, REDACTED_KEY],
    [CARD_NUMBER, REDACTED_NUMBER],
  ] as const) {
    for (const match of reading.matchAll(pattern)) {
      const first = units[owner[match.index]];
      const last = units[owner[match.index + match[0].length - 1]];
      found.push({ start: first.start, end: last.end, marker });
    }
  }
}

/**
 * Text that has other readings than itself: it holds an escape or characters beyond ASCII. (A
 * `+` read as a space changes nothing: both separate digits, neither is part of a key.)
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: \x00-\x7f is the ASCII range, on purpose
const MAY_BE_ENCODED = /[%\\]|[^\x00-\x7f]/;
const PLAIN_KEY = /apk_/i;
const PLAIN_CARD = /[0-9](?:[^A-Za-z0-9]{0,3}[0-9]){11,}/;

/** The text with every key and card number (in any of its readings) replaced by a marker. */
export function scrubSecrets(text: string): string {
  // Most logged text is plain ASCII with nothing in it: two quick searches and it is done.
  const encoded = MAY_BE_ENCODED.test(text);
  if (!encoded && !PLAIN_KEY.test(text) && !PLAIN_CARD.test(text)) return text;
  const found: Array<{ start: number; end: number; marker: string }> = [];
  let units = unitsOf(text);
  secretSpans(units, found);
  if (encoded) {
    for (let layer = 0; layer < MAX_LAYERS; layer++) {
      const decoded = decodeOnce(units);
      if (decoded.length === units.length && decoded.every((u, i) => u.text === units[i].text)) break;
      units = decoded;
      secretSpans(units, found);
    }
  }
  if (found.length === 0) return text;
  found.sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (let i = 0; i < found.length; ) {
    let { start, end, marker } = found[i];
    // Overlapping finds (a key whose body holds digits; one number seen in two readings) merge; a key wins.
    for (i++; i < found.length && found[i].start < end; i++) {
      end = Math.max(end, found[i].end);
      if (found[i].marker === REDACTED_KEY) marker = REDACTED_KEY;
    }
    out += text.slice(at, start) + marker;
    at = end;
  }
  return out + text.slice(at);
}

/** Whether the text holds a key or a card number in any of its readings. */
export function containsSecret(text: string): boolean {
  return scrubSecrets(text) !== text;
}
