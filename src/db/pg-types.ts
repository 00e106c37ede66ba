// How `pg` turns PostgreSQL text into values, for every pg connection Signet opens (the
// server pool and the socket of a shared PGlite folder alike).
import pg from 'pg';

const timestamptzOid = 1184;
const generalTimestampParser = pg.types.getTypeParser(timestamptzOid);
const utcTimestamp = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?\+00$/;

function parseTimestamptz(value: string): Date {
  return utcTimestamp.test(value)
    ? new Date(`${value.slice(0, 10)}T${value.slice(11, -3)}Z`)
    : (generalTimestampParser(value) as Date);
}

export const getPgTypeParser = ((oid: number, format?: string) =>
  oid === timestamptzOid && format !== 'binary'
    ? parseTimestamptz
    : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser;
