import { kinds } from '../kinds/index.js';
import type { IncludeNode, ListPlan } from '../plan/list-plan.js';
import type { ExportFormat } from '../request/list-request.js';
import type { ResolvedResource } from '../resource/registry.js';
import { visibleColumnsOf } from '../sql/selection.js';

/**
 * How a stream of record batches is written: the JSON array of `all=true`, and the two exports. Each
 * writer is given the batches in order; `start` is written before the first (the CSV header, fixed
 * from the plan, never from the rows), `end` after the last.
 */
export interface RecordWriter {
  readonly contentType: string;
  readonly start: string;
  /** One batch of records (as the list answers them), `first` when nothing precedes it. */
  batch(records: readonly unknown[], first: boolean): string;
  readonly end: string;
}

export const JSON_ARRAY_TYPE = 'application/json; charset=utf-8';
export const CSV_TYPE = 'text/csv; charset=utf-8; header=present';
/** With its charset, as every host then sends it (Fastify adds one to a text body without). */
export const NDJSON_TYPE = 'application/x-ndjson; charset=utf-8';

/** The media type each export format is asked for by in `Accept`. */
export const exportMediaTypes: Readonly<Record<ExportFormat, string>> = {
  csv: 'text/csv',
  ndjson: 'application/x-ndjson',
};

/** `all=true`: one JSON array. */
export const jsonArrayWriter: RecordWriter = {
  contentType: JSON_ARRAY_TYPE,
  start: '[',
  batch: (records, first) =>
    `${first ? '' : ','}${records.map((record) => JSON.stringify(record)).join(',')}`,
  end: ']',
};

/** NDJSON: each record as the JSON list shows it, one per line. */
const ndjsonWriter: RecordWriter = {
  contentType: NDJSON_TYPE,
  start: '',
  batch: (records) => records.map((record) => `${JSON.stringify(record) ?? 'null'}\n`).join(''),
  end: '',
};

/** The writer of a plan's answer: its export format's, or the JSON array's. */
export function writerOf(plan: ListPlan): RecordWriter {
  if (plan.export === 'csv') return csvWriter(plan);
  if (plan.export === 'ndjson') return ndjsonWriter;
  return jsonArrayWriter;
}

/** `users-2026-11-26.csv`: the endpoint's path (safe characters only, RFC 6266) and the UTC day. */
export function exportFilename(endpointPath: string, format: ExportFormat, now: Date = new Date()): string {
  const base = endpointPath.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|-+$/g, '') || 'export';
  return `${base}-${now.toISOString().slice(0, 10)}.${format}`;
}

type Cell = string | null;
type Data = Record<string, unknown>;

/** One CSV column: its header and how a record gives its cell. */
interface CsvColumn {
  readonly title: string;
  cell(record: Data): Cell;
}

/**
 * OWASP's "CSV Injection": a spreadsheet runs a cell starting with one of these as a formula
 * (`=HYPERLINK(…)`, `@SUM(…)`, `-2+3`…). A leading `'` makes it text and shows nothing more.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

const textCell = (value: unknown): Cell => {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return FORMULA_START.test(text) ? `'${text}` : text;
};

/** A number's text as answered: never prefixed, a negative number stays a number in a spreadsheet. */
const numberCell = (value: unknown): Cell => (value === null || value === undefined ? null : String(value));

/**
 * A JSON column, or a to-many relation: its JSON text. Never prefixed: JSON text starts with `{`, `[`,
 * `"`, a letter, a digit, or `-` only for a number, none of which a spreadsheet runs.
 */
const jsonCell = (value: unknown): Cell =>
  value === null || value === undefined ? null : JSON.stringify(value);

const toOne = (node: IncludeNode) => node.relation.kind === 'belongsTo' || node.relation.kind === 'hasOne';

/**
 * The cell writer of a column, by how its kind is shown in a table: numbers (integer, decimal, bigint,
 * money) as they are, JSON (json, array) as its text, the rest as text.
 */
function cellOf(type: ResolvedResource['visibleColumns'][number]['type']): (value: unknown) => Cell {
  const { table } = kinds[type];
  if (table === 'number') return numberCell;
  if (table === 'json') return jsonCell;
  return textCell;
}

/**
 * The columns of a resource's records under `prefix` (`author.`): its visible columns in their declared
 * order (or the fields selected for `owner`), then the to-one includes below it flattened the same way,
 * then each to-many include as one cell of JSON.
 */
function columnsOf(
  resource: ResolvedResource,
  plan: ListPlan,
  owner: string,
  includes: readonly IncludeNode[],
  prefix: string,
  get: (record: Data) => Data | null | undefined,
): CsvColumn[] {
  const selected = plan.fields.get(owner);
  const columns: CsvColumn[] = visibleColumnsOf(resource, selected && new Set(selected)).map((column) => {
    const cell = cellOf(column.type);
    return { title: `${prefix}${column.name}`, cell: (record) => cell(get(record)?.[column.name]) };
  });
  if (owner === '')
    for (const relation of plan.counts) {
      const name = `${relation.name}_count`;
      columns.push({ title: name, cell: (record) => numberCell(record[name]) });
    }
  for (const node of includes) {
    const name = node.relation.name;
    const title = `${prefix}${name}`;
    if (toOne(node)) {
      const related = (record: Data) => {
        const value = get(record)?.[name];
        return typeof value === 'object' && value !== null ? (value as Data) : null;
      };
      columns.push(...columnsOf(node.relation.target, plan, node.path, node.children, `${title}.`, related));
    } else columns.push({ title, cell: (record) => jsonCell(get(record)?.[name]) });
  }
  return columns;
}

/**
 * The columns of a plan's CSV, fixed before any row is read: the records' visible (or selected)
 * columns, `<relation>_count` for `count=`, to-one includes flattened (`department.name`), to-many
 * includes as one cell of JSON. A record is read by column name, so a cell the `response` transformer
 * removed is empty and a key it added has no column.
 */
export function csvColumns(plan: ListPlan): CsvColumn[] {
  const self = (record: Data) => record;
  return columnsOf(plan.resource, plan, '', plan.includes, '', self);
}

/**
 * One RFC 4180 field: quoted when it holds a comma, a quote, CR or LF, its quotes doubled. NULL and an
 * empty text are both an empty field (CSV has no NULL).
 *
 * Written by hand, not with csv-stringify: its per-field work (options looked up, several tests and
 * concatenations per field) made a 1,000,000-row export take 215 MB of peak RSS against 141 MB for
 * these lines, over the stream's 150 MB budget (docs/benchmarks.md, "Exports").
 */
const NEEDS_QUOTES = /[",\r\n]/;
const field = (cell: Cell): string =>
  cell === null ? '' : NEEDS_QUOTES.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;

/** A record's line, CRLF-terminated, built as one string (no array per row: less garbage per record). */
function line(cells: readonly Cell[]): string {
  let text = '';
  for (let i = 0; i < cells.length; i++)
    text += i === 0 ? field(cells[i] as Cell) : `,${field(cells[i] as Cell)}`;
  return `${text}\r\n`;
}

/** CSV (RFC 4180, UTF-8, CRLF after each record): the header row first, written even when no record follows. */
function csvWriter(plan: ListPlan): RecordWriter {
  const columns = csvColumns(plan);
  const row = (record: unknown): string => {
    const data = typeof record === 'object' && record !== null ? (record as Data) : {};
    let text = '';
    for (let i = 0; i < columns.length; i++) {
      const cell = field((columns[i] as CsvColumn).cell(data));
      text += i === 0 ? cell : `,${cell}`;
    }
    return `${text}\r\n`;
  };
  return {
    contentType: CSV_TYPE,
    start: line(columns.map((column) => column.title)),
    batch: (records) => {
      let text = '';
      for (const record of records) text += row(record);
      return text;
    },
    end: '',
  };
}
