import type { Contact } from './types.ts';
import { checkZone } from './window.ts';

/** A row of the contacts file that will not be called, and why. */
export interface BadRow {
  /** The row's line in the file (the header is line 1). */
  line: number;
  message: string;
}

/** The contacts a file gives, and its rows refused (nothing is dialled for them). */
export interface ParsedContacts {
  contacts: Contact[];
  bad: BadRow[];
  /** The variable columns (every column but `number` and `timezone`). */
  columns: string[];
}

const E164 = /^\+[1-9]\d{7,14}$/;
const NAME = /^[\p{L}_][\p{L}\p{N}_]*$/u;

/** A number as E.164: spaces, dashes, dots and brackets dropped, a leading 00 read as +; undefined when it is not one. */
export function normalizeNumber(raw: string): string | undefined {
  const n = String(raw).trim().replace(/[\s\-.()]/g, '').replace(/^00/, '+');
  return E164.test(n) ? n : undefined;
}

/** Splits CSV text into rows of fields (RFC 4180 quoting: "a ""b""", commas and newlines inside quotes), with each row's line. */
export function csvRows(text: string): { line: number; fields: string[] }[] {
  const rows: { line: number; fields: string[] }[] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let rowLine = 1;
  const s = text.replace(/^\uFEFF/, '');
  const endRow = () => {
    fields.push(field);
    if (fields.length > 1 || fields[0]!.trim() !== '') rows.push({ line: rowLine, fields });
    fields = [];
    field = '';
  };
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (quoted) {
      if (ch === '"' && s[i + 1] === '"') (field += '"'), i++;
      else if (ch === '"') quoted = false;
      else {
        if (ch === '\n') line++;
        field += ch;
      }
    } else if (ch === '"' && field === '') quoted = true;
    else if (ch === ',') fields.push(field), (field = '');
    else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && s[i + 1] === '\n') i++;
      endRow();
      rowLine = ++line;
    } else field += ch;
  }
  if (field !== '' || fields.length) endRow();
  return rows;
}

/**
 * Reads a contacts file: a header row with a `number` column, an optional `timezone` column,
 * and any other columns as the call's variables. A row with a bad number, a wrong field count,
 * an unknown zone or a number already listed is refused with its line number.
 */
export function parseContacts(text: string): ParsedContacts {
  const rows = csvRows(text);
  const header = rows.shift();
  if (!header) throw new Error('the contacts file is empty (it needs a header row with a "number" column)');
  const names = header.fields.map((f) => f.trim());
  const numberAt = names.findIndex((n) => n.toLowerCase() === 'number');
  if (numberAt < 0) throw new Error(`the contacts file's header has no "number" column (it has: ${names.join(', ')})`);
  const zoneAt = names.findIndex((n) => ['timezone', 'time_zone', 'tz'].includes(n.toLowerCase()));
  for (const [i, n] of names.entries()) {
    if (i !== numberAt && i !== zoneAt && !NAME.test(n)) throw new Error(`column "${n}" of the header: a variable's name is letters, digits and _, not starting with a digit`);
  }
  const columns = names.filter((_, i) => i !== numberAt && i !== zoneAt);
  const contacts: Contact[] = [];
  const bad: BadRow[] = [];
  const seen = new Map<string, number>();
  for (const { line, fields } of rows) {
    if (fields.length !== names.length) {
      bad.push({ line, message: `${fields.length} fields where the header has ${names.length}` });
      continue;
    }
    const number = normalizeNumber(fields[numberAt]!);
    if (!number) {
      bad.push({ line, message: `"${fields[numberAt]}" is not a phone number in international form (+9665…)` });
      continue;
    }
    if (seen.has(number)) {
      bad.push({ line, message: `${number} is already on line ${seen.get(number)}` });
      continue;
    }
    const zone = zoneAt >= 0 ? fields[zoneAt]!.trim() : '';
    if (zone) {
      try {
        checkZone(zone);
      } catch (err) {
        bad.push({ line, message: (err as Error).message });
        continue;
      }
    }
    seen.set(number, line);
    const variables = Object.fromEntries(names.map((n, i) => [n, fields[i]!.trim()] as const).filter((_, i) => i !== numberAt && i !== zoneAt));
    contacts.push({ number, variables, ...(zone ? { timeZone: zone } : {}), line });
  }
  return { contacts, bad, columns };
}

/**
 * Reads a do-not-call list: one number per line, or a CSV whose header has a `number` column.
 * Blank lines and `#` comments are skipped; a line that is no number is an error with its line.
 */
export function parseDoNotCall(text: string): Set<string> {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const csv = /(^|,)\s*number\s*(,|$)/i.test(lines[0] ?? '');
  const out = new Set<string>();
  if (csv) {
    const { contacts, bad } = parseContacts(text);
    // A repeat is harmless in a list of numbers; anything else is a line the list meant and lost.
    const wrong = bad.find((b) => !/is already on line/.test(b.message));
    if (wrong) throw new Error(`do-not-call list, line ${wrong.line}: ${wrong.message}`);
    for (const c of contacts) out.add(c.number);
    return out;
  }
  for (const [i, raw] of lines.entries()) {
    const t = raw.replace(/#.*$/, '').trim();
    if (!t) continue;
    const n = normalizeNumber(t);
    if (!n) throw new Error(`do-not-call list, line ${i + 1}: "${t}" is not a phone number in international form`);
    out.add(n);
  }
  return out;
}
