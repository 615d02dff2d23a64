import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { type RawBuilder, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/cli/load-config.js';
import { type ConfigPlan, init } from '../src/init/index.js';
import type { EndpointPolicy, IncludeConstraintPolicy } from '../src/resource/policy.js';
import type { ColumnOptions, RelationDefinition, ResourceDefinition } from '../src/resource/types.js';
import type { StandaloneConfig } from '../src/server/config.js';
import { buildService } from '../src/server/standalone.js';
import type { Connection } from '../src/sql/connect.js';
import type { DialectName } from '../src/sql/dialect.js';
import {
  type BucketUnit,
  createTutorial,
  type EngineSql,
  engineSql,
  growInvoiceLines,
  type Tutorial,
  tutorialEngines,
} from './fixtures/init-tutorial.js';
import { parseCsv } from './support/csv.js';
import { dropDatabase, freshDatabase } from './support/databases.js';
import { softEqual } from './support/equal.js';

/**
 * An oracle for what `init` generates. On a music store (PascalCase; SQLite, PostgreSQL, MariaDB) and a
 * DVD rental shop (snake_case; PostgreSQL, MariaDB) of its own (test/fixtures/init-tutorial.ts), the
 * generated module is written to a folder without the package and loaded as the CLI loads it, unchanged;
 * then every thing each endpoint's policy allows
 * — read from the generated configuration itself, so whatever init turns on later is checked too — is
 * asked through the service and compared with SQL written here, independently of the service's compiler:
 * each sort both ways (cursor pages of 3 walked to the end, and a numbered page), each filter with the
 * operators its schema document advertises (relation paths as EXISTS), each include (nested ones level by
 * level) and count, each constrained include (limit, sort, filter, `<relation>_total`), each aggregate
 * (metrics by every allowed group, date buckets filled), CSV and NDJSON exports of every table, and the
 * schema documents. Then what init is expected to generate, named one by one.
 */
// A folder outside the repository, without the package: the module is written as init writes it
// (importing 'resource-query-service') and loaded as the CLI loads it (loadConfig).
let generated = '';
beforeAll(() => {
  generated = mkdtempSync(join(tmpdir(), 'rqs-init-oracle-'));
});
afterAll(() => rmSync(generated, { recursive: true, force: true }));

type Row = Record<string, unknown>;
// biome-ignore lint/suspicious/noExplicitAny: parsed JSON of a response.
type Json = any;

interface Env {
  tutorial: Tutorial;
  dialect: DialectName;
  e: EngineSql;
  conn: Connection;
  app: FastifyInstance;
  config: StandaloneConfig;
  plan: ConfigPlan;
  source: string;
  file: string;
  resources: Map<string, ResourceDefinition>;
  documents: Map<string, Json>;
  /**
   * The oracle's answers by statement and values: the checks ask SQL the same questions many times (every
   * record's keys, a relation's pairs, a filter's candidate values) over data they do not change.
   */
  answers: Map<string, Promise<Row[]>>;
}

// ---------------------------------------------------------------------------------------------------
// Values: what a column holds, as the service answers it and as the oracle compares it
// ---------------------------------------------------------------------------------------------------

/** An instant in any of the engines' text forms (or a Date) → `YYYY-MM-DDTHH:MM:SS.sssZ`. */
function isoOf(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  const text = String(value).trim();
  const match =
    /^(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2})(:\d{2})?(\.\d+)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/.exec(text);
  if (!match) throw new Error(`not an instant: ${text}`);
  const [, day, hm = '00:00', seconds = ':00', fraction = '.000', zone = 'Z'] = match;
  const offset =
    zone === 'Z'
      ? 'Z'
      : zone.length === 3
        ? `${zone}:00`
        : zone.includes(':')
          ? zone
          : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  return new Date(`${day}T${hm}${seconds}${fraction.padEnd(4, '0').slice(0, 4)}${offset}`).toISOString();
}

const dayOf = (value: unknown): string =>
  typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : isoOf(value).slice(0, 10);

const truthy = (value: unknown) =>
  value === true || value === 1 || value === '1' || value === 't' || value === 'true';

/** A collection column's members (a PostgreSQL array, a MariaDB SET's text, an answered array). */
function membersOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  const text = String(value);
  if (text.startsWith('{')) return text.slice(1, -1).split(',').filter(Boolean);
  return text === '' ? [] : text.split(',');
}

/** One value as a comparable text: the same for the database's raw value and the service's answer. */
function norm(kind: string, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  switch (kind) {
    case 'datetime':
      return isoOf(value);
    case 'date':
      return dayOf(value);
    case 'decimal':
    case 'money':
      return String(Number(value));
    case 'boolean':
      return truthy(value) ? 'true' : 'false';
    case 'set':
    case 'array':
      return JSON.stringify(membersOf(value).sort());
    default:
      return typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
}

/**
 * A raw database value as the service answers it in a list (docs/responses-and-errors.md,
 * docs/aggregates.md).
 */
function answerOf(kind: string, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (kind) {
    case 'integer':
    case 'decimal':
      return Number(value);
    case 'bigint':
      return String(value);
    case 'datetime':
      return isoOf(value);
    case 'date':
      return dayOf(value);
    case 'boolean':
      return truthy(value);
    default:
      return value;
  }
}

/** A raw database value written as a client writes it in a query string. */
function queryValue(kind: string, value: unknown): string {
  switch (kind) {
    case 'datetime':
      return isoOf(value);
    case 'date':
      return dayOf(value);
    case 'boolean':
      return truthy(value) ? 'true' : 'false';
    default:
      return String(value);
  }
}

const collections = new Set(['set', 'array']);

// ---------------------------------------------------------------------------------------------------
// The configuration: resources, columns, relations, paths
// ---------------------------------------------------------------------------------------------------

const keysOf = (resource: ResourceDefinition): string[] =>
  resource.primaryKey === undefined
    ? ['id']
    : typeof resource.primaryKey === 'string'
      ? [resource.primaryKey]
      : [...resource.primaryKey];

function specOf(resource: ResourceDefinition, column: string): ColumnOptions | undefined {
  if (!Object.hasOwn(resource.columns, column)) return undefined;
  const spec = resource.columns[column];
  return spec === undefined ? undefined : typeof spec === 'string' ? { type: spec } : spec;
}
const kindOf = (resource: ResourceDefinition, column: string): string =>
  specOf(resource, column)?.type ?? 'unknown';
const visibleColumns = (resource: ResourceDefinition): string[] =>
  Object.keys(resource.columns).filter((column) => !specOf(resource, column)?.hidden);
const toMany = (relation: RelationDefinition) =>
  relation.kind === 'hasMany' || relation.kind === 'belongsToMany';

interface Step {
  from: ResourceDefinition;
  name: string;
  relation: RelationDefinition;
  to: ResourceDefinition;
}
interface Resolved {
  steps: Step[];
  target: ResourceDefinition;
  column: string | undefined;
}

function resourceNamed(env: Env, name: string): ResourceDefinition {
  const resource = env.resources.get(name);
  if (!resource) throw new Error(`no resource ${name}`);
  return resource;
}

function stepOf(env: Env, from: ResourceDefinition, name: string): Step {
  const relation = from.relations && Object.hasOwn(from.relations, name) ? from.relations[name] : undefined;
  if (!relation) throw new Error(`${from.name} has no relation ${name}`);
  return { from, name, relation, to: resourceNamed(env, relation.resource) };
}

/** `a.b.column`: relations while the segments name relations, then at most one column. */
function resolvePath(env: Env, resource: ResourceDefinition, dotted: string): Resolved {
  const segments = dotted.split('.');
  const steps: Step[] = [];
  let current = resource;
  let i = 0;
  for (; i < segments.length; i++) {
    const name = segments[i] as string;
    if (!current.relations || !Object.hasOwn(current.relations, name)) break;
    const step = stepOf(env, current, name);
    steps.push(step);
    current = step.to;
  }
  const rest = segments.slice(i);
  if (rest.length > 1) throw new Error(`${resource.name}: ${dotted} is not relations then one column`);
  return { steps, target: current, column: rest[0] };
}

// ---------------------------------------------------------------------------------------------------
// The oracle's SQL
// ---------------------------------------------------------------------------------------------------

/** Runs `text`, its `?` bound to `params` in order. */
async function select(env: Env, text: string, params: readonly unknown[] = []): Promise<Row[]> {
  const pieces = text.split('?');
  if (pieces.length - 1 !== params.length)
    throw new Error(`${pieces.length - 1} placeholders, ${params.length} values: ${text}`);
  const key = `${text}\n${JSON.stringify(params)}`;
  let answer = env.answers.get(key);
  if (!answer) {
    let query: RawBuilder<unknown> = sql.raw(pieces[0] as string);
    params.forEach((param, i) => {
      query = sql`${query}${param}${sql.raw(pieces[i + 1] as string)}`;
    });
    answer = query.execute(env.conn.db).then(
      (result) => result.rows as Row[],
      (error: Error) => {
        throw new Error(`oracle SQL failed: ${error.message}\n${text}\n${JSON.stringify(params)}`);
      },
    );
    env.answers.set(key, answer);
  }
  return answer;
}

/** The FROM items that hold a relation's rows (alias `to`) and how they link to the row aliased `from`. */
function link(env: Env, step: Step, from: string, to: string): { items: string; on: string } {
  const { q } = env.e;
  const relation = step.relation;
  const table = `${q(step.to.table)} ${to}`;
  switch (relation.kind) {
    case 'belongsTo':
      return {
        items: table,
        on: `${to}.${q(relation.ownerKey ?? (keysOf(step.to)[0] as string))} = ${from}.${q(relation.foreignKey)}`,
      };
    case 'hasOne':
    case 'hasMany':
      return {
        items: table,
        on: `${to}.${q(relation.foreignKey)} = ${from}.${q(relation.localKey ?? (keysOf(step.from)[0] as string))}`,
      };
    case 'belongsToMany': {
      const pivot = `${to}p`;
      return {
        items: `${q(relation.pivot)} ${pivot} join ${table} on ${to}.${q(relation.relatedKey ?? (keysOf(step.to)[0] as string))} = ${pivot}.${q(relation.relatedPivotKey)}`,
        on: `${pivot}.${q(relation.foreignPivotKey)} = ${from}.${q(relation.parentKey ?? (keysOf(step.from)[0] as string))}`,
      };
    }
  }
}

/** "At least one related row, through every step, satisfies `predicate`" (docs/query-language.md). */
function existsThrough(
  env: Env,
  steps: readonly Step[],
  from: string,
  predicate: (alias: string) => string,
  depth = 1,
): string {
  const [step, ...rest] = steps;
  if (!step) return predicate(from);
  const alias = `r${depth}`;
  const { items, on } = link(env, step, from, alias);
  return `exists (select 1 from ${items} where ${on} and ${existsThrough(env, rest, alias, predicate, depth + 1)})`;
}

const keyColumns = (env: Env, resource: ResourceDefinition, alias: string, prefix: string) =>
  keysOf(resource)
    .map((key, i) => `${alias}.${env.e.q(key)} as ${prefix}${i}`)
    .join(', ');

const rowKey = (resource: ResourceDefinition, row: Row, prefix = 'k') =>
  keysOf(resource)
    .map((key, i) => norm(kindOf(resource, key), row[`${prefix}${i}`]))
    .join(',');

const recordKey = (resource: ResourceDefinition, record: Row) =>
  keysOf(resource)
    .map((key) => norm(kindOf(resource, key), record[key]))
    .join(',');

/** The keys of the rows `where` selects, sorted (as text). */
async function keysWhere(
  env: Env,
  resource: ResourceDefinition,
  where: string,
  params: readonly unknown[],
): Promise<string[]> {
  const rows = await select(
    env,
    `select ${keyColumns(env, resource, 't0', 'k')} from ${env.e.q(resource.table)} t0${where ? ` where ${where}` : ''}`,
    params,
  );
  return rows.map((row) => rowKey(resource, row)).sort();
}

async function countOf(env: Env, resource: ResourceDefinition): Promise<number> {
  const rows = await select(env, `select count(*) as n from ${env.e.q(resource.table)}`);
  return Number(rows[0]?.n);
}

/**
 * `ORDER BY` of a `sort` parameter as docs/query-language.md ("Sort") defines it: each term with NULL the
 * smallest value, a to-one path LEFT JOINed, a count correlated; then every key column the sort does not
 * name, descending.
 */
function orderOf(env: Env, resource: ResourceDefinition, sort: string): { joins: string; order: string } {
  const { q } = env.e;
  const joins: string[] = [];
  const terms: string[] = [];
  const named = new Set<string>();
  let n = 0;
  for (const term of sort.split(',').filter(Boolean)) {
    const descending = term.startsWith('-');
    const name = descending ? term.slice(1) : term;
    let expression: string;
    if (specOf(resource, name)) {
      expression = `t0.${q(name)}`;
      named.add(name);
    } else if (name.includes('.')) {
      const { steps, column } = resolvePath(env, resource, name);
      let alias = 't0';
      for (const step of steps) {
        const next = `j${++n}`;
        const { items, on } = link(env, step, alias, next);
        joins.push(`left join ${items} on ${on}`);
        alias = next;
      }
      expression = `${alias}.${q(column as string)}`;
    } else if (name.endsWith('_count')) {
      const { items, on } = link(
        env,
        stepOf(env, resource, name.slice(0, -'_count'.length)),
        't0',
        `c${++n}`,
      );
      expression = `(select count(*) from ${items} where ${on})`;
    } else throw new Error(`${resource.name}: sort ${name} is no column, path or count`);
    terms.push(env.e.order(expression, descending));
  }
  for (const key of keysOf(resource)) if (!named.has(key)) terms.push(`t0.${q(key)} desc`);
  return { joins: joins.join(' '), order: terms.join(', ') };
}

async function sortedKeys(env: Env, resource: ResourceDefinition, sort: string): Promise<string[]> {
  const { joins, order } = orderOf(env, resource, sort);
  const rows = await select(
    env,
    `select ${keyColumns(env, resource, 't0', 'k')} from ${env.e.q(resource.table)} t0 ${joins} order by ${order}`,
  );
  return rows.map((row) => rowKey(resource, row));
}

/**
 * Each parent's related keys through one relation, in the order an include answers them: the related key
 * ascending (docs/query-language.md, "Includes and counts"), or `sort`'s terms then the key in the last
 * term's direction (the same page, "Constrained includes"); `where` narrows the related rows (alias `t1`).
 */
async function relatedKeys(
  env: Env,
  step: Step,
  options: { sort?: string; where?: string; params?: readonly unknown[] } = {},
): Promise<Map<string, string[]>> {
  const { q } = env.e;
  const { items, on } = link(env, step, 't0', 't1');
  const order = keysOf(step.from).map((key) => `t0.${q(key)}`);
  let last = false;
  for (const term of (options.sort ?? '').split(',').filter(Boolean)) {
    last = term.startsWith('-');
    order.push(env.e.order(`t1.${q(last ? term.slice(1) : term)}`, last));
  }
  for (const key of keysOf(step.to)) order.push(`t1.${q(key)} ${last ? 'desc' : 'asc'}`);
  const rows = await select(
    env,
    `select ${keyColumns(env, step.from, 't0', 'p')}, ${keyColumns(env, step.to, 't1', 'c')} from ${q(step.from.table)} t0, ${items} where ${on}${options.where ? ` and ${options.where}` : ''} order by ${order.join(', ')}`,
    options.params ?? [],
  );
  const map = new Map<string, string[]>();
  for (const row of rows) {
    const parent = rowKey(step.from, row, 'p');
    const list = map.get(parent) ?? [];
    list.push(rowKey(step.to, row, 'c'));
    map.set(parent, list);
  }
  return map;
}

// ---------------------------------------------------------------------------------------------------
// The service
// ---------------------------------------------------------------------------------------------------

interface Answer {
  status: number;
  text: string;
  body: Json;
  headers: Record<string, unknown>;
}

async function ask(env: Env, url: string): Promise<Answer> {
  const response = await env.app.inject({ method: 'GET', url });
  let body: Json;
  try {
    body = JSON.parse(response.body);
  } catch {
    body = undefined;
  }
  return { status: response.statusCode, text: response.body, body, headers: response.headers };
}

const pathOf = (endpoint: EndpointPolicy) => endpoint.path ?? endpoint.resource;
const maxPerPage = (endpoint: EndpointPolicy) => endpoint.perPage?.max ?? 100;
const queryOf = (...parts: (string | undefined)[]) => parts.filter((part) => part).join('&');
const brief = (text: string) => (text.length > 400 ? `${text.slice(0, 400)}…` : text);

/**
 * Every record of a list query, page after page of the endpoint's largest size: length-aware pages, whose
 * `total` is returned, or `simple` ones (no count statement) where only the records are checked.
 */
async function everyRecord(
  env: Env,
  endpoint: EndpointPolicy,
  query: string,
  pagination: 'length-aware' | 'simple' = 'length-aware',
): Promise<{ records: Row[]; total?: number; error?: string }> {
  const records: Row[] = [];
  const simple = pagination === 'simple' ? 'pagination=simple' : undefined;
  for (let page = 1; page < 1000; page++) {
    const url = `/api/${pathOf(endpoint)}?${queryOf(query, simple, `per_page=${maxPerPage(endpoint)}`, `page=${page}`)}`;
    const answer = await ask(env, url);
    if (answer.status !== 200) return { records, error: `${url}: ${answer.status} ${brief(answer.text)}` };
    records.push(...(answer.body.data as Row[]));
    if (simple ? answer.body.next_page_url === null : records.length >= answer.body.total)
      return { records, ...(!simple && { total: answer.body.total }) };
    if (answer.body.data.length === 0) return { records, error: `${url}: an empty page before the end` };
  }
  return { records, error: 'more than 1000 pages' };
}

/** The keys of a cursor walk: `per_page` records a page, following `next_cursor` to the end. */
async function cursorWalk(
  env: Env,
  endpoint: EndpointPolicy,
  resource: ResourceDefinition,
  query: string,
  perPage: number,
) {
  const keys: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const url = `/api/${pathOf(endpoint)}?${queryOf(query, 'pagination=cursor', `per_page=${perPage}`, cursor && `cursor=${encodeURIComponent(cursor)}`)}`;
    const answer = await ask(env, url);
    if (answer.status !== 200) return { keys, error: `${url}: ${answer.status} ${brief(answer.text)}` };
    keys.push(...(answer.body.data as Row[]).map((record) => recordKey(resource, record)));
    cursor = answer.body.next_cursor ?? undefined;
    if (!cursor) return { keys };
  }
  return { keys, error: 'more than 1000 pages' };
}

async function schemaDocument(env: Env, endpoint: EndpointPolicy): Promise<Json> {
  const path = pathOf(endpoint);
  const known = env.documents.get(path);
  if (known) return known;
  const answer = await ask(env, `/api/v1/${path}/schema`);
  const document = answer.status === 200 ? answer.body : { table: { filters: [], columns: [] } };
  env.documents.set(path, document);
  return document;
}

/** Filter names an endpoint allows, wildcards expanded (`*`: visible columns; `a.b.*`: the target's). */
function filterNames(env: Env, resource: ResourceDefinition, endpoint: EndpointPolicy): string[] {
  const names: string[] = [];
  for (const entry of endpoint.allowedFilters ?? []) {
    if (typeof entry !== 'string') continue;
    if (entry === '*') names.push(...visibleColumns(resource));
    else if (entry.endsWith('.*')) {
      const prefix = entry.slice(0, -2);
      const { target, column } = resolvePath(env, resource, prefix);
      if (column === undefined) names.push(...visibleColumns(target).map((name) => `${prefix}.${name}`));
    } else names.push(entry);
  }
  return [...new Set(names)];
}

// ---------------------------------------------------------------------------------------------------
// Dates of aggregates' buckets (UTC)
// ---------------------------------------------------------------------------------------------------

const utc = (day: string) => new Date(`${day}T00:00:00.000Z`);
const dayText = (date: Date) => date.toISOString().slice(0, 10);

function unitStart(day: string, unit: BucketUnit): string {
  const date = utc(day);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  switch (unit) {
    case 'day':
      return day;
    case 'week':
      return dayText(new Date(date.getTime() - ((date.getUTCDay() + 6) % 7) * 86_400_000));
    case 'month':
      return dayText(new Date(Date.UTC(year, month, 1)));
    case 'quarter':
      return dayText(new Date(Date.UTC(year, month - (month % 3), 1)));
    case 'year':
      return dayText(new Date(Date.UTC(year, 0, 1)));
  }
}

function nextUnit(day: string, unit: BucketUnit): string {
  const date = utc(day);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  const d = date.getUTCDate();
  switch (unit) {
    case 'day':
      return dayText(new Date(Date.UTC(year, month, d + 1)));
    case 'week':
      return dayText(new Date(Date.UTC(year, month, d + 7)));
    case 'month':
      return dayText(new Date(Date.UTC(year, month + 1, 1)));
    case 'quarter':
      return dayText(new Date(Date.UTC(year, month + 3, 1)));
    case 'year':
      return dayText(new Date(Date.UTC(year + 1, 0, 1)));
  }
}

// ---------------------------------------------------------------------------------------------------
// Decimal arithmetic of aggregates (docs/aggregates.md: whole units of the scale, BigInt)
// ---------------------------------------------------------------------------------------------------

function fixed(units: bigint, scale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  return `${negative ? '-' : ''}${whole}${scale > 0 ? `.${digits.slice(digits.length - scale)}` : ''}`;
}

/** `sum / count` with `scale + 4` decimals, rounded half away from zero. */
function average(sum: bigint, count: bigint, scale: number): string {
  const numerator = (sum < 0n ? -sum : sum) * 10_000n;
  const quotient = (2n * numerator + count) / (2n * count);
  return fixed(sum < 0n ? -quotient : quotient, scale + 4);
}

// ---------------------------------------------------------------------------------------------------
// Setting up: the tutorial database, init, the generated module as it is, the service
// ---------------------------------------------------------------------------------------------------

function useTutorial(tutorial: Tutorial, dialect: DialectName): { env: () => Env } {
  const name = `oracle_${tutorial}`;
  let env: Env | undefined;
  let failure: unknown;
  beforeAll(async () => {
    const conn = await freshDatabase(dialect, name);
    try {
      await createTutorial(conn, tutorial);
      const { plan, source } = await init({ connection: conn, out: false, lineWidth: 110 });
      const file = join(generated, `${tutorial}-${dialect}.ts`);
      writeFileSync(file, source);
      const config = await loadConfig(file);
      const app = await buildService({ config, connection: conn });
      env = {
        tutorial,
        dialect,
        e: engineSql[dialect],
        conn,
        app,
        config,
        plan,
        source,
        file,
        resources: new Map(config.resources.map((resource) => [resource.name, resource])),
        documents: new Map(),
        answers: new Map(),
      };
    } catch (error) {
      failure = error;
      await conn.db.destroy();
    }
  }, 120_000);
  afterAll(async () => {
    await env?.app.close();
    await env?.conn.db.destroy();
    await dropDatabase(dialect, name);
  });
  return {
    env: () => {
      if (!env)
        throw new Error(
          `the generated module did not load and start: ${(failure as Error)?.stack ?? failure}`,
        );
      return env;
    },
  };
}

/** Each endpoint with its resource. */
function endpointsOf(env: Env): { endpoint: EndpointPolicy; resource: ResourceDefinition }[] {
  return env.config.endpoints.map((endpoint) => ({
    endpoint,
    resource: resourceNamed(env, endpoint.resource),
  }));
}

/** Runs `check` on every endpoint, a few at a time (the server engines answer them side by side). */
async function eachEndpoint(
  env: Env,
  check: (entry: { endpoint: EndpointPolicy; resource: ResourceDefinition }) => Promise<void>,
): Promise<void> {
  const queue = endpointsOf(env);
  const workers = env.dialect === 'sqlite' ? 1 : 4;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      for (let entry = queue.shift(); entry; entry = queue.shift()) await check(entry);
    }),
  );
}

// ---------------------------------------------------------------------------------------------------
// The generic checks
// ---------------------------------------------------------------------------------------------------

async function checkSorts(env: Env): Promise<number> {
  let checked = 0;
  await eachEndpoint(env, async ({ endpoint, resource }) => {
    const sorts = [...(endpoint.allowedSorts ?? [])];
    for (const name of sorts)
      for (const sort of [name, `-${name}`]) {
        const label = `${pathOf(endpoint)}?sort=${sort}`;
        const expected = await sortedKeys(env, resource, sort);
        expect(expected.length, `${label}: SQL rows`).toBe(await countOf(env, resource));
        const walked = await cursorWalk(env, endpoint, resource, `sort=${encodeURIComponent(sort)}`, 3);
        softEqual(walked.error, undefined, `${label}: cursor pages`);
        softEqual(
          walked.keys,
          expected,
          `${label}: the keys of the cursor pages (per_page=3) against SQL's ORDER BY`,
        );
        const page = await ask(
          env,
          `/api/${pathOf(endpoint)}?sort=${encodeURIComponent(sort)}&page=2&per_page=3`,
        );
        softEqual(page.status, 200, `${label}&page=2&per_page=3: ${brief(page.text)}`);
        if (page.status === 200) {
          softEqual(
            (page.body.data as Row[]).map((record) => recordKey(resource, record)),
            expected.slice(3, 6),
            `${label}&page=2&per_page=3`,
          );
          softEqual(page.body.total, expected.length, `${label}&page=2&per_page=3: total`);
        }
        checked++;
      }
  });
  return checked;
}

interface FilterCase {
  operator: string;
  /** The query-string part, `base` being `filter[<name>]` or `include_filter[<path>][<name>]`. */
  query: (base: string) => string;
  /** The condition on the row aliased `alias`. */
  where: (alias: string) => string;
  params: unknown[];
}

/**
 * The operator cases of one filter of `resource`, for the operators the schema document lists, with
 * values taken from the data so that each selects a strict subset where one exists. An empty text is
 * never a value: a filter whose value is empty is no filter (docs/query-language.md, "Filters").
 */
async function filterCases(
  env: Env,
  resource: ResourceDefinition,
  name: string,
  operators: readonly string[],
): Promise<FilterCase[]> {
  const { q } = env.e;
  const { steps, target, column } = resolvePath(env, resource, name);
  if (column === undefined || !specOf(target, column))
    throw new Error(`${resource.name}: filter ${name} is no column or path`);
  const kind = kindOf(target, column);
  const nullable = specOf(target, column)?.nullable !== false;
  const total = await countOf(env, resource);
  const through = (predicate: (alias: string) => string) => (alias: string) =>
    existsThrough(env, steps, alias, predicate);
  const rawValues = (
    await select(
      env,
      `select distinct t.${q(column)} as v from ${q(target.table)} t where t.${q(column)} is not null order by v`,
    )
  )
    .map((row) => row.v)
    .filter((value) => queryValue(kind, value).trim() !== '');
  const cases: FilterCase[] = [];
  const strict = async (
    candidates: unknown[],
    build: (value: unknown) => FilterCase,
  ): Promise<FilterCase | undefined> => {
    let first: FilterCase | undefined;
    for (const value of candidates.slice(0, 12)) {
      const built = build(value);
      const n = (await keysWhere(env, resource, built.where('t0'), built.params)).length;
      if (n > 0 && n < total) return built;
      first ??= built;
    }
    return first;
  };
  const op = (operator: string) => (base: string) => `${base}${operator === 'eq' ? '' : `[${operator}]`}`;
  const scalar =
    (operator: string, sqlOperator: string) =>
    (value: unknown): FilterCase => ({
      operator,
      query: (base) => `${op(operator)(base)}=${encodeURIComponent(queryValue(kind, value))}`,
      where: through((alias) => `${alias}.${q(column)} ${sqlOperator} ?`),
      params: [value],
    });
  const list = (operator: string, values: readonly string[]) => (base: string) =>
    values.map((item) => `${op(operator)(base)}[]=${encodeURIComponent(item)}`).join('&');
  if (collections.has(kind)) {
    const members = [...new Set(rawValues.flatMap(membersOf))].sort();
    const pairs = rawValues.map(membersOf).filter((members) => members.length >= 2);
    const bound = (members: string[]) => (env.dialect === 'postgres' ? [members] : members);
    if (operators.includes('has_any') && members.length > 0) {
      const chosen = await strict(members, (value) => ({
        operator: 'has_any',
        query: (base) => `${op('has_any')(base)}=${encodeURIComponent(String(value))}`,
        where: through((alias) => env.e.hasElements(`${alias}.${q(column)}`, 'any', 1)),
        params: bound([String(value)]),
      }));
      if (chosen) cases.push(chosen);
    }
    if (operators.includes('has_all') && pairs.length > 0) {
      const chosen = await strict(pairs, (value) => {
        const members = (value as string[]).slice(0, 2);
        return {
          operator: 'has_all',
          query: list('has_all', members),
          where: through((alias) => env.e.hasElements(`${alias}.${q(column)}`, 'all', 2)),
          params: bound(members),
        };
      });
      if (chosen) cases.push(chosen);
    }
  } else if (kind !== 'json' && kind !== 'binary') {
    const eq = operators.includes('eq') ? await strict(rawValues, scalar('eq', '=')) : undefined;
    if (eq) cases.push(eq);
    const value = eq?.params[0] ?? rawValues[0];
    if (value !== undefined) {
      if (operators.includes('neq')) cases.push(scalar('neq', '<>')(value));
      if (operators.includes('gte')) cases.push(scalar('gte', '>=')(value));
      if (operators.includes('lt')) cases.push(scalar('lt', '<')(value));
      const other = rawValues.find((candidate) => norm(kind, candidate) !== norm(kind, value));
      if (operators.includes('in') && other !== undefined)
        cases.push({
          operator: 'in',
          query: list(
            'in',
            [value, other].map((item) => queryValue(kind, item)),
          ),
          where: through((alias) => `${alias}.${q(column)} in (?, ?)`),
          params: [value, other],
        });
      if (operators.includes('contains')) {
        const letters = String(value)
          .trim()
          .replace(/[^A-Za-z0-9 ]/g, '');
        const part = letters.length > 4 ? letters.slice(1, 4) : letters;
        if (part.trim() !== '')
          cases.push({
            operator: 'contains',
            query: (base) => `${op('contains')(base)}=${encodeURIComponent(part)}`,
            where: through((alias) => env.e.like(`${alias}.${q(column)}`)),
            params: [`%${part}%`],
          });
      }
      if (operators.includes('date_eq') && (kind === 'date' || kind === 'datetime')) {
        const day = dayOf(value);
        const bound = (text: string) => (kind === 'date' ? text : env.e.instant(`${text}T00:00:00.000Z`));
        cases.push({
          operator: 'date_eq',
          query: (base) => `${op('date_eq')(base)}=${day}`,
          where: through((alias) => `${alias}.${q(column)} >= ? and ${alias}.${q(column)} < ?`),
          params: [bound(day), bound(nextUnit(day, 'day'))],
        });
      }
    }
  }
  if (operators.includes('is_null') && nullable)
    cases.push({
      operator: 'is_null',
      query: (base) => `${op('is_null')(base)}=true`,
      where: through((alias) => `${alias}.${q(column)} is null`),
      params: [],
    });
  return cases;
}

type DescribedFilter = { name: string; operators: string[] };

/** The cases of one allowed filter, or a soft failure saying why the oracle cannot make them. */
async function casesOf(
  env: Env,
  resource: ResourceDefinition,
  name: string,
  described: DescribedFilter | undefined,
  label: string,
): Promise<FilterCase[]> {
  expect.soft(described, `${label}: filter ${name} is described in the schema document`).toBeDefined();
  try {
    return await filterCases(env, resource, name, described?.operators ?? ['eq']);
  } catch (error) {
    expect.soft((error as Error).message, `${label}: filter ${name}: the oracle cannot check it`).toBe('');
    return [];
  }
}

async function checkFilters(env: Env): Promise<number> {
  let checked = 0;
  await eachEndpoint(env, async ({ endpoint, resource }) => {
    const document = await schemaDocument(env, endpoint);
    for (const name of filterNames(env, resource, endpoint)) {
      const described = (document.table.filters as DescribedFilter[]).find((filter) => filter.name === name);
      for (const test of await casesOf(env, resource, name, described, pathOf(endpoint))) {
        const query = test.query(`filter[${name}]`);
        const label = `${pathOf(endpoint)}?${query}`;
        const expected = await keysWhere(env, resource, test.where('t0'), test.params);
        const { records, total, error } = await everyRecord(env, endpoint, query);
        softEqual(error, undefined, label);
        softEqual(total, expected.length, `${label}: total`);
        const keys = records.map((record) => recordKey(resource, record)).sort();
        softEqual(
          keys,
          expected,
          `${label}: keys against SQL's WHERE ${test.where('t0')} ${JSON.stringify(test.params)}`,
        );
        checked++;
      }
    }
  });
  return checked;
}

/** Checks one level of an include on `records`, then the next level on the records it included. */
async function checkIncludeLevel(
  env: Env,
  resource: ResourceDefinition,
  records: readonly Row[],
  segments: readonly string[],
  label: string,
): Promise<void> {
  const [name, ...rest] = segments;
  if (name === undefined) return;
  const step = stepOf(env, resource, name);
  const expected = await relatedKeys(env, step);
  const children: Row[] = [];
  for (const record of records) {
    const value = record[name];
    const key = recordKey(resource, record);
    let actual: string[];
    if (toMany(step.relation)) {
      softEqual(Array.isArray(value), true, `${label}: ${resource.name} ${key}.${name} is an array`);
      const list = Array.isArray(value) ? (value as Row[]) : [];
      actual = list.map((child) => recordKey(step.to, child));
      children.push(...list);
    } else {
      actual = value === null || value === undefined ? [] : [recordKey(step.to, value as Row)];
      if (value) children.push(value as Row);
    }
    softEqual(actual, expected.get(key) ?? [], `${label}: ${resource.name} ${key}.${name}`);
  }
  await checkIncludeLevel(env, step.to, children, rest, label);
}

async function checkIncludesAndCounts(env: Env): Promise<number> {
  let checked = 0;
  await eachEndpoint(env, async ({ endpoint, resource }) => {
    const total = await countOf(env, resource);
    for (const path of endpoint.allowedIncludes ?? []) {
      const label = `${pathOf(endpoint)}?include=${path}`;
      const { records, error } = await everyRecord(env, endpoint, `include=${path}`);
      softEqual(error, undefined, label);
      softEqual(records.length, total, `${label}: records`);
      await checkIncludeLevel(env, resource, records, path.split('.'), label);
      checked++;
    }
    const counts = endpoint.allowedCounts ?? [];
    if (counts.length > 0) {
      const label = `${pathOf(endpoint)}?count=${counts.join(',')}`;
      const { records, error } = await everyRecord(env, endpoint, `count=${counts.join(',')}`);
      softEqual(error, undefined, label);
      softEqual(records.length, total, `${label}: records`);
      for (const name of counts) {
        const related = await relatedKeys(env, stepOf(env, resource, name));
        const actual = records.map((record) => [recordKey(resource, record), record[`${name}_count`]]);
        const wanted = records.map((record) => [
          recordKey(resource, record),
          related.get(recordKey(resource, record))?.length ?? 0,
        ]);
        softEqual(actual, wanted, `${label}: ${name}_count against SQL's count`);
        checked++;
      }
    }
  });
  return checked;
}

/** The records an include path reaches below its last segment: the parents of the last relation. */
function parentsAt(records: readonly Row[], prefix: readonly string[]): Row[] {
  let level: Row[] = [...records];
  for (const name of prefix)
    level = level.flatMap((record) => {
      const value = record[name];
      return Array.isArray(value) ? (value as Row[]) : value ? [value as Row] : [];
    });
  return level;
}

async function checkConstrainedInclude(
  env: Env,
  endpoint: EndpointPolicy,
  resource: ResourceDefinition,
  path: string,
  constraint: IncludeConstraintPolicy,
): Promise<number> {
  const segments = path.split('.');
  const prefix = segments.slice(0, -1);
  const leaf = segments[segments.length - 1] as string;
  let parent = resource;
  for (const name of prefix) parent = stepOf(env, parent, name).to;
  const step = stepOf(env, parent, leaf);
  const limit = Math.min(2, constraint.maxLimit ?? 1000);
  // The parents of the last relation: every record, then each level's related records as the include
  // answers them (cut at a level's own maxLimit).
  const parentCount = async () => {
    let keys = await keysWhere(env, resource, '', []);
    let current = resource;
    for (let i = 0; i < prefix.length; i++) {
      const at = stepOf(env, current, prefix[i] as string);
      const cut =
        endpoint.includeConstraints?.[prefix.slice(0, i + 1).join('.')]?.maxLimit ?? keys.length + 1000;
      const related = await relatedKeys(env, at);
      keys = keys.flatMap((key) => (related.get(key) ?? []).slice(0, cut));
      current = at.to;
    }
    return keys.length;
  };
  const document = await schemaDocument(env, endpoint);
  let checked = 0;
  const run = async (
    query: string,
    cut: number,
    options: { sort?: string; where?: string; params?: unknown[] },
  ) => {
    const label = `${pathOf(endpoint)}?${query}`;
    // The parents' total is not the constraint's: their pages are read without a count.
    const { records, error } = await everyRecord(env, endpoint, query, 'simple');
    softEqual(error, undefined, label);
    const parents = parentsAt(records, prefix);
    softEqual(parents.length, await parentCount(), `${label}: parents the include reaches`);
    const expected = await relatedKeys(env, step, options);
    for (const record of parents) {
      const key = recordKey(parent, record);
      const all = expected.get(key) ?? [];
      const value = record[leaf];
      const actual = Array.isArray(value)
        ? (value as Row[]).map((child) => recordKey(step.to, child))
        : value;
      softEqual(
        actual,
        all.slice(0, cut),
        `${label}: ${parent.name} ${key}.${leaf} against SQL's first ${cut}`,
      );
      softEqual(
        record[`${leaf}_total`],
        all.length,
        `${label}: ${parent.name} ${key}.${leaf}_total against SQL's count`,
      );
    }
    checked++;
  };
  const base = `include=${path}&include_limit[${path}]=${limit}`;
  await run(base, limit, {});
  // Each allowed sort, directions alternating (the first both ways).
  const sorts = (constraint.allowedSorts ?? []).map((column, i) => (i % 2 === 0 ? column : `-${column}`));
  if (sorts[0]) sorts.push(`-${sorts[0]}`);
  for (const sort of sorts)
    await run(`${base}&include_sort[${path}]=${encodeURIComponent(sort)}`, limit, { sort });
  if (constraint.maxLimit !== undefined) await run(`include=${path}`, constraint.maxLimit, {});
  // Each allowed filter, with one operator case (the first its description lists that the oracle makes).
  const described = (document.table.includeConstraints?.[path]?.filters ?? []) as DescribedFilter[];
  for (const name of constraint.allowedFilters ?? []) {
    const label = `${pathOf(endpoint)}: include_filter[${path}]`;
    const [test] = await casesOf(
      env,
      step.to,
      name,
      described.find((filter) => filter.name === name),
      label,
    );
    if (test)
      await run(`${base}&${test.query(`include_filter[${path}][${name}]`)}`, limit, {
        where: test.where('t1'),
        params: test.params,
      });
  }
  return checked;
}

async function checkIncludeConstraints(env: Env): Promise<number> {
  let checked = 0;
  await eachEndpoint(env, async ({ endpoint, resource }) => {
    for (const [path, constraint] of Object.entries(endpoint.includeConstraints ?? {}))
      checked += await checkConstrainedInclude(env, endpoint, resource, path, constraint);
  });
  return checked;
}

interface GroupSql {
  joins: string;
  expression: string;
  where: string;
  params: unknown[];
  query: string;
  answer: (raw: unknown) => unknown;
  /** A bucket: every bucket's first day, in order. */
  series?: string[];
}

async function groupSql(
  env: Env,
  resource: ResourceDefinition,
  group: string,
  maxBuckets: number,
): Promise<GroupSql> {
  const { q } = env.e;
  const [name, unit] = group.split(':') as [string, BucketUnit | undefined];
  if (unit) {
    const kind = kindOf(resource, name);
    const range =
      (
        await select(env, `select min(${q(name)}) as lo, max(${q(name)}) as hi from ${q(resource.table)}`)
      )[0] ?? {};
    const from = unitStart(dayOf(range.lo), unit);
    const series: string[] = [];
    for (let day = from; series.length < maxBuckets && day <= dayOf(range.hi); day = nextUnit(day, unit))
      series.push(day);
    const to = nextUnit(series[series.length - 1] as string, unit);
    const bound = (day: string) => (kind === 'date' ? day : env.e.instant(`${day}T00:00:00.000Z`));
    return {
      joins: '',
      expression: env.e.bucket(`t0.${q(name)}`, unit),
      where: `t0.${q(name)} >= ? and t0.${q(name)} < ?`,
      params: [bound(from), bound(to)],
      query: `group_by=${encodeURIComponent(group)}&from=${from}&to=${to}&tz=UTC`,
      answer: (raw) => raw,
      series,
    };
  }
  const { steps, target, column } = resolvePath(env, resource, name);
  const joins: string[] = [];
  let alias = 't0';
  steps.forEach((step, i) => {
    const next = `g${i + 1}`;
    const { items, on } = link(env, step, alias, next);
    joins.push(`left join ${items} on ${on}`);
    alias = next;
  });
  const kind = kindOf(target, column as string);
  return {
    joins: joins.join(' '),
    expression: `${alias}.${q(column as string)}`,
    where: '',
    params: [],
    query: `group_by=${encodeURIComponent(group)}`,
    answer: (raw) => answerOf(kind, raw),
  };
}

interface MetricSql {
  select: string[];
  value: (row: Row, prefix: string) => unknown;
  empty: unknown;
}

function metricSql(env: Env, resource: ResourceDefinition, metric: string): MetricSql {
  const { q } = env.e;
  if (metric === 'count') return { select: ['count(*)'], value: (row, p) => Number(row[`${p}a`]), empty: 0 };
  const [fn, column] = metric.split(':') as [string, string];
  const kind = kindOf(resource, column);
  const c = `t0.${q(column)}`;
  const scale = kind === 'decimal' ? (specOf(resource, column)?.scale ?? 0) : 0;
  switch (fn) {
    case 'count_distinct':
      return { select: [`count(distinct ${c})`], value: (row, p) => Number(row[`${p}a`]), empty: 0 };
    case 'sum':
    case 'avg': {
      const units = kind === 'decimal' ? env.e.units(c, scale) : c;
      return {
        select: [`sum(${units})`, `count(${c})`],
        value: (row, p) => {
          const n = BigInt(String(row[`${p}b`]));
          if (n === 0n) return null;
          const sum = BigInt(String(row[`${p}a`]).replace(/\.0*$/, ''));
          if (fn === 'avg') return average(sum, n, scale);
          return kind === 'decimal' ? fixed(sum, scale) : kind === 'bigint' ? sum.toString() : Number(sum);
        },
        empty: null,
      };
    }
    case 'min':
    case 'max':
      return { select: [`${fn}(${c})`], value: (row, p) => answerOf(kind, row[`${p}a`]), empty: null };
  }
  throw new Error(`${resource.name}: metric ${metric}`);
}

async function checkAggregates(env: Env): Promise<number> {
  let checked = 0;
  await eachEndpoint(env, async ({ endpoint, resource }) => {
    const aggregates = endpoint.aggregates;
    if (!aggregates) return;
    // `count` first, as `metrics=count,<each metric>`, where the endpoint allows it.
    const allowed = aggregates.allowedAggregates ?? [];
    const metrics = [...new Set([...allowed.filter((metric) => metric === 'count'), ...allowed])];
    const measured = metrics.map((metric) => metricSql(env, resource, metric));
    for (const group of [undefined, ...(aggregates.allowedGroupBy ?? [])]) {
      const g = group ? await groupSql(env, resource, group, aggregates.maxBuckets ?? 1000) : undefined;
      const url = `/api/${pathOf(endpoint)}/aggregate?${queryOf(`metrics=${encodeURIComponent(metrics.join(','))}`, g?.query)}`;
      const selections = measured.flatMap((m, i) => m.select.map((s, j) => `${s} as m${i}${'ab'[j]}`));
      const text = `select ${g ? `${g.expression} as g, ` : ''}${selections.join(', ')} from ${env.e.q(resource.table)} t0 ${g?.joins ?? ''}${g?.where ? ` where ${g.where}` : ''}${g ? ` group by ${g.expression} order by ${env.e.order(g.expression, false)}` : ''}`;
      const rows = await select(env, text, g?.params ?? []);
      const entry = (key: unknown, row: Row | undefined) => ({
        ...(group ? { group: { [group]: key } } : {}),
        ...Object.fromEntries(
          metrics.map((metric, i) => [metric, row ? measured[i]?.value(row, `m${i}`) : measured[i]?.empty]),
        ),
      });
      let expected: Row[];
      if (g?.series) {
        const byDay = new Map(rows.map((row) => [dayOf(row.g), row]));
        expected = g.series.map((day) => entry(day, byDay.get(day)));
      } else expected = rows.map((row) => entry(g ? g.answer(row.g) : undefined, row));
      const answer = await ask(env, url);
      expect.soft(answer.status, `${url}: ${brief(answer.text)}`).toBe(200);
      if (answer.status === 200) {
        const kind = group?.includes(':') ? kindOf(resource, group.split(':')[0] as string) : undefined;
        const actual = (answer.body.data as Row[]).map((row) => {
          const { group: key, ...rest } = row as { group?: Row };
          const value = key && group ? key[group] : undefined;
          return {
            ...(group
              ? {
                  group: {
                    [group]:
                      kind && value !== null ? (kind === 'date' ? dayOf(value) : dayOf(isoOf(value))) : value,
                  },
                }
              : {}),
            ...rest,
          };
        });
        expect.soft(actual, `${url}: groups against SQL's GROUP BY`).toEqual(expected);
        if (group?.includes(':') && kind === 'datetime')
          for (const row of answer.body.data as { group: Row }[])
            expect
              .soft(String(row.group[group]), `${url}: a bucket's key is its first instant in UTC`)
              .toMatch(/T00:00:00(\.000)?(Z|\+00:00)$/);
      }
      checked++;
    }
  });
  return checked;
}

async function checkExports(env: Env, only?: string): Promise<number> {
  let checked = 0;
  for (const { endpoint, resource } of endpointsOf(env)) {
    if (only && endpoint.resource !== only) continue;
    const sort =
      endpoint.defaultSort ??
      keysOf(resource)
        .map((key) => `-${key}`)
        .join(',');
    const expected = await sortedKeys(env, resource, sort);
    for (const format of ['csv', 'ndjson'] as const) {
      const url = `/api/${pathOf(endpoint)}?format=${format}`;
      const answer = await ask(env, url);
      expect.soft(answer.status, `${url}: ${brief(answer.text)}`).toBe(200);
      if (answer.status !== 200) continue;
      let keys: string[];
      if (format === 'csv') {
        expect.soft(String(answer.headers['content-type']), url).toMatch(/^text\/csv/);
        const [header = [], ...rows] = parseCsv(answer.text);
        expect.soft(rows.length, `${url}: one line per row and a header`).toBe(expected.length);
        const at = keysOf(resource).map((key) => header.indexOf(key));
        expect
          .soft(
            at.every((i) => i >= 0),
            `${url}: the header ${header.join(',')} holds the key`,
          )
          .toBe(true);
        keys = rows.map((row) =>
          keysOf(resource)
            .map((key, i) => norm(kindOf(resource, key), row[at[i] as number] || null))
            .join(','),
        );
      } else {
        const lines = answer.text.split('\n').filter((line) => line !== '');
        expect.soft(lines.length, `${url}: one line per row`).toBe(expected.length);
        keys = lines.map((line) => recordKey(resource, JSON.parse(line) as Row));
      }
      expect.soft(keys, `${url}: keys in the default order (${sort}) against SQL`).toEqual(expected);
      checked++;
    }
  }
  return checked;
}

// ---------------------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------------------

for (const tutorial of ['music', 'rental'] as const)
  for (const dialect of tutorialEngines[tutorial])
    describe(`init oracle: the ${tutorial === 'music' ? 'music store' : 'DVD rental'} on ${dialect}`, () => {
      const { env } = useTutorial(tutorial, dialect);

      it('the generated module loads and starts as generated, with an endpoint per resource', () => {
        const { source, file, config, plan } = env();
        expect(readFileSync(file, 'utf8')).toBe(source);
        expect(config.endpoints.map((endpoint) => endpoint.resource).sort()).toEqual(
          plan.resources.map((resource) => resource.name).sort(),
        );
        expect(config.endpoints.length).toBeGreaterThan(5);
      });

      it('every allowed sort, both ways, walked in cursor pages of 3 and as page 2, as SQL orders it', async () => {
        expect(await checkSorts(env())).toBeGreaterThan(0);
      }, 120_000);

      it('every allowed filter, with the operators its schema document lists, as SQL selects', async () => {
        expect(await checkFilters(env())).toBeGreaterThan(0);
      }, 120_000);

      it('every allowed include, level by level, and every allowed count, as SQL relates them', async () => {
        expect(await checkIncludesAndCounts(env())).toBeGreaterThan(0);
      }, 120_000);

      it('every constrained include: limits, sorts, filters and <relation>_total, as SQL ranks them', async () => {
        const e = env();
        const constrained = e.config.endpoints.filter(
          (endpoint) => Object.keys(endpoint.includeConstraints ?? {}).length > 0,
        );
        const checked = await checkIncludeConstraints(e);
        expect(checked).toBeGreaterThanOrEqual(constrained.length);
      }, 120_000);

      it('every aggregate: every metric by every allowed group, as SQL groups', async () => {
        const e = env();
        const checked = await checkAggregates(e);
        expect(checked).toBeGreaterThanOrEqual(
          e.config.endpoints.filter((endpoint) => endpoint.aggregates).length,
        );
      }, 120_000);

      it('every table exports as CSV and NDJSON, one line per row, keys in the default order', async () => {
        const e = env();
        expect(await checkExports(e)).toBe(2 * e.config.endpoints.length);
      }, 120_000);

      it('the schema index lists every resource, and each schema document answers', async () => {
        const e = env();
        const index = await ask(e, '/api/v1/schema');
        expect(index.status, index.text).toBe(200);
        expect(
          (index.body.resources as { resource: string }[]).map((entry) => entry.resource).sort(),
        ).toEqual(e.config.endpoints.map((endpoint) => endpoint.resource).sort());
        for (const endpoint of e.config.endpoints) {
          const answer = await ask(e, `/api/v1/${pathOf(endpoint)}/schema`);
          expect.soft(answer.status, `/api/v1/${pathOf(endpoint)}/schema: ${brief(answer.text)}`).toBe(200);
        }
      });

      it('<list>/aggregate of an endpoint without aggregates says they are not enabled, not "no record"', async () => {
        const e = env();
        let without = e.config.endpoints.find((endpoint) => !endpoint.aggregates);
        let app = e.app;
        // init may give every endpoint aggregates: the route's answer is then checked on a copy without them.
        if (!without) {
          const first = e.config.endpoints[0] as EndpointPolicy;
          without = { ...first, aggregates: undefined };
          const config = {
            ...e.config,
            endpoints: e.config.endpoints.map((endpoint) => (endpoint === first ? without : endpoint)),
          } as StandaloneConfig;
          app = await buildService({ config, connection: e.conn });
        }
        try {
          const response = await app.inject({
            method: 'GET',
            url: `/api/${pathOf(without as EndpointPolicy)}/aggregate?metrics=count`,
          });
          expect(response.statusCode, response.body).toBeGreaterThanOrEqual(400);
          expect(response.statusCode, response.body).toBeLessThan(500);
          expect(response.body).not.toMatch(/record/i);
          expect(response.body).toMatch(/aggregates? (are|is) not enabled/i);
        } finally {
          if (app !== e.app) await app.close();
        }
      });

      if (tutorial === 'music') {
        const endpointOf = (e: Env, name: string) => {
          const endpoint = e.config.endpoints.find((candidate) => candidate.resource === name);
          if (!endpoint) throw new Error(`no endpoint of ${name}`);
          return endpoint;
        };

        it('init generates: sort=-InvoiceDate and sort=-Total on Invoice', async () => {
          const e = env();
          expect(endpointOf(e, 'Invoice').allowedSorts).toEqual(
            expect.arrayContaining(['InvoiceDate', 'Total']),
          );
          for (const sort of ['-InvoiceDate', '-Total']) {
            const answer = await ask(e, `/api/Invoice?sort=${sort}&per_page=100`);
            expect(answer.status, answer.text).toBe(200);
            expect(
              (answer.body.data as Row[]).map((record) => recordKey(resourceNamed(e, 'Invoice'), record)),
            ).toEqual(await sortedKeys(e, resourceNamed(e, 'Invoice'), sort));
          }
        });

        it('init generates: the album.Title sort on Track', () => {
          expect(endpointOf(env(), 'Track').allowedSorts).toContain('album.Title');
        });

        it("init generates: the count sort of Customer's invoices", () => {
          const e = env();
          const invoices = Object.entries(resourceNamed(e, 'Customer').relations ?? {}).find(
            ([, relation]) => relation.kind === 'hasMany' && relation.resource === 'Invoice',
          );
          expect(invoices, 'Customer hasMany Invoice').toBeDefined();
          expect(endpointOf(e, 'Customer').allowedSorts).toContain(`${invoices?.[0]}_count`);
          expect(endpointOf(e, 'Customer').allowedCounts).toContain(invoices?.[0]);
        });

        it('init generates: include=album.artist on Track', () => {
          expect(endpointOf(env(), 'Track').allowedIncludes).toContain('album.artist');
        });

        it('init generates: filter[album.artist.Name] on Track, answered as SQL selects', async () => {
          const e = env();
          expect(endpointOf(e, 'Track').allowedFilters).toContain('album.artist.Name');
          const q = e.e.q;
          const answer = await ask(e, '/api/Track?filter[album.artist.Name]=Basalt&per_page=100');
          expect(answer.status, answer.text).toBe(200);
          expect((answer.body.data as Row[]).map((record) => String(record.TrackId)).sort()).toEqual(
            await keysWhere(
              e,
              resourceNamed(e, 'Track'),
              `t0.${q('AlbumId')} in (select al.${q('AlbumId')} from ${q('Album')} al join ${q('Artist')} ar on ar.${q('ArtistId')} = al.${q('ArtistId')} where ar.${q('Name')} = ?)`,
              ['Basalt'],
            ),
          );
        });

        it("init generates: includeConstraints with a maxLimit on Album's tracks", () => {
          expect(endpointOf(env(), 'Album').includeConstraints?.tracks?.maxLimit).toBeGreaterThan(0);
        });

        it('init generates: aggregates on Invoice, sum:Total by InvoiceDate:month', async () => {
          const e = env();
          const aggregates = endpointOf(e, 'Invoice').aggregates;
          expect(aggregates?.allowedAggregates).toContain('sum:Total');
          expect(aggregates?.allowedGroupBy).toContain('InvoiceDate:month');
          const answer = await ask(
            e,
            '/api/Invoice/aggregate?metrics=count,sum:Total&group_by=InvoiceDate:month&from=2021-01-01&to=2022-01-01&tz=UTC',
          );
          expect(answer.status, answer.text).toBe(200);
          expect(answer.body.data).toHaveLength(12);
        });

        if (dialect === 'sqlite')
          it('init generates: exports of any size (InvoiceLine grown past every fixed cap the file holds)', async () => {
            const e = env();
            const endpoint = endpointOf(e, 'InvoiceLine');
            const record = endpoint as EndpointPolicy & Record<string, unknown>;
            const caps = Object.keys(record)
              .filter((key) => /^allow(All|Export)/.test(key))
              .map((key) => record[key]);
            const numbers = caps.filter((cap): cap is number => typeof cap === 'number');
            const target = Math.max(12_000, ...numbers.map((cap) => cap + 1));
            expect(
              target,
              `a cap of ${Math.max(...numbers)} is too large to grow past in a test`,
            ).toBeLessThanOrEqual(60_000);
            await growInvoiceLines(e.conn, target);
            e.answers.clear();
            expect(await countOf(e, resourceNamed(e, 'InvoiceLine'))).toBe(target);
            expect(await checkExports(e, 'InvoiceLine')).toBe(2);
          }, 120_000);
      } else {
        it('init generates: filter[special_features][has_any]=Trailers on film, answered as SQL selects', async () => {
          const e = env();
          const film = resourceNamed(e, 'film');
          const q = e.e.q;
          const answer = await ask(e, '/api/film?filter[special_features][has_any]=Trailers&per_page=100');
          expect(answer.status, answer.text).toBe(200);
          expect((answer.body.data as Row[]).map((record) => recordKey(film, record)).sort()).toEqual(
            await keysWhere(
              e,
              film,
              e.e.hasElements(`t0.${q('special_features')}`, 'any', 1),
              e.dialect === 'postgres' ? [['Trailers']] : ['Trailers'],
            ),
          );
        });

        it("init generates: customer_list's name in its schema document's table columns", async () => {
          const e = env();
          const document = await ask(e, '/api/v1/customer_list/schema');
          expect(document.status, document.text).toBe(200);
          expect((document.body.table.columns as { key: string }[]).map((column) => column.key)).toContain(
            'name',
          );
        });

        it('the view with a key is served and answers its rows; the view without one is left out, saying why', async () => {
          const e = env();
          expect(e.plan.skipped.map((skip) => skip.table)).toContain('sales_by_film_category');
          expect(e.plan.skipped.find((skip) => skip.table === 'sales_by_film_category')?.reason).toMatch(
            /view without a key/,
          );
          expect(e.plan.resources.find((resource) => resource.name === 'customer_list')).toMatchObject({
            view: true,
            primaryKey: 'id',
          });
          const answer = await ask(e, '/api/customer_list?sort=id&per_page=100');
          expect(answer.status, answer.text).toBe(200);
          const q = e.e.q;
          const names = await select(
            e,
            `select customer_id as id, ${e.e.fullName(`c.${q('first_name')}`, `c.${q('last_name')}`)} as name from customer c order by customer_id`,
          );
          expect(names.length).toBe(8);
          expect((answer.body.data as Row[]).map((record) => [record.id, record.name])).toEqual(
            names.map((row) => [Number(row.id), row.name]),
          );
        });

        if (dialect === 'mysql')
          it('init generates: the film table with a YEAR column starts, its years answered as SQL holds them', async () => {
            const e = env();
            expect(kindOf(resourceNamed(e, 'film'), 'release_year')).toBe('integer');
            const answer = await ask(e, '/api/film?sort=film_id&per_page=100');
            expect(answer.status, answer.text).toBe(200);
            const rows = await select(e, 'select film_id, release_year from film order by film_id');
            expect(rows.length).toBe(10);
            expect((answer.body.data as Row[]).map((record) => record.release_year)).toEqual(
              rows.map((row) => Number(row.release_year)),
            );
          });

        if (dialect === 'postgres')
          it('the partitioned payment table is served once, as its parent; its partitions are not resources', async () => {
            const e = env();
            const names = e.plan.resources.map((resource) => resource.name);
            expect(names.filter((name) => name === 'payment')).toHaveLength(1);
            expect(names.filter((name) => name.startsWith('payment_'))).toEqual([]);
            expect(
              e.plan.skipped.map((skip) => skip.table).filter((name) => name.startsWith('payment_')),
            ).toEqual([]);
            const payment = resourceNamed(e, 'payment');
            // Its key is the partitioned table's: the partition key and the id.
            expect(keysOf(payment).sort()).toEqual(['payment_date', 'payment_id']);
            const answer = await ask(e, '/api/payment?per_page=100');
            expect(answer.status, answer.text).toBe(200);
            expect(answer.body.total).toBe(await countOf(e, payment));
            expect((answer.body.data as Row[]).map((record) => recordKey(payment, record))).toEqual(
              await sortedKeys(
                e,
                payment,
                e.config.endpoints.find((endpoint) => endpoint.resource === 'payment')?.defaultSort ??
                  '-payment_id',
              ),
            );
          });
      }
    });
