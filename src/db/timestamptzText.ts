/**
 * PostgreSQL's text of a `timestamptz` (DateStyle ISO) as an RFC 3339 instant in UTC with
 * milliseconds, the form every timestamp of this API takes: `2026-05-01 14:00:00.12+02` →
 * `2026-05-01T12:00:00.120Z`.
 *
 * The text carries the offset of the session's TimeZone, and that is not always UTC: a server
 * set to `Europe/Berlin`, or a pooler that drops the session's TimeZone, hands over `+01`/`+02`,
 * India `+05:30`, Newfoundland `-03:30`, and zones before standard time offsets in seconds
 * (Berlin's LMT, `+00:53:28`). So the offset is read, whatever it is, and subtracted exactly.
 * Digits past the millisecond are cut, as `Date` cuts them.
 */
const TIMESTAMPTZ = /^(\d{4,})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?([+-])(\d\d)(?::(\d\d))?(?::(\d\d))?( BC)?$/;

export function timestamptzToIso(text: string): string {
  // The common case by far (a session in UTC): no arithmetic.
  if (text.endsWith('+00') && text.length >= 22 && text.charCodeAt(4) === 45) {
    const fraction =
      text.length > 22
        ? text
            .slice(19, text.length - 3)
            .slice(0, 4)
            .padEnd(4, '0')
        : '.000';
    return `${text.slice(0, 10)}T${text.slice(11, 19)}${fraction}Z`;
  }
  const m = TIMESTAMPTZ.exec(text);
  if (!m) {
    if (text === 'infinity' || text === '-infinity') return text;
    throw new Error(`unexpected timestamptz text from PostgreSQL: ${JSON.stringify(text)} (is DateStyle ISO?)`);
  }
  const [, y, mo, d, h, mi, s, fraction = '', sign, oh, om = '0', os = '0', bc] = m;
  const year = bc ? 1 - Number(y) : Number(y);
  const at = new Date(0);
  at.setUTCFullYear(year, Number(mo) - 1, Number(d));
  at.setUTCHours(Number(h), Number(mi), Number(s), Number(fraction.slice(0, 3).padEnd(3, '0')));
  const offsetMs = (Number(oh) * 3600 + Number(om) * 60 + Number(os)) * 1000;
  return new Date(at.getTime() - (sign === '+' ? offsetMs : -offsetMs)).toISOString();
}
