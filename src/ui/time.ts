// Times for people (issue 36 §6): in the workspace's time zone and naming it, for the web
// app's pages and the mails. The certificate and the API keep UTC (ISO 8601).

const clockFormats = new Map<string, Intl.DateTimeFormat>();

/** The (cached) formatter of a time zone's wall clock, with seconds. */
function clockFormat(timeZone: string): Intl.DateTimeFormat {
  let format = clockFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    clockFormats.set(timeZone, format);
  }
  return format;
}

/**
 * An API timestamp for people, in the workspace's time zone and naming it:
 * "2026-11-25 15:03 Europe/Berlin", "2026-11-25 14:03 UTC" (with seconds where they matter).
 */
export function formatTime(iso: string, timeZone: string, withSeconds = false): string {
  if (timeZone === 'UTC') return `${iso.slice(0, 10)} ${iso.slice(11, withSeconds ? 19 : 16)} UTC`;
  const parts = Object.fromEntries(
    clockFormat(timeZone)
      .formatToParts(new Date(iso))
      .map((part) => [part.type, part.value]),
  );
  const time = `${parts.hour}:${parts.minute}${withSeconds ? `:${parts.second}` : ''}`;
  return `${parts.year}-${parts.month}-${parts.day} ${time} ${timeZone}`;
}
