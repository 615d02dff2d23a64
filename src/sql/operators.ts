import type { Expression, SqlBool } from 'kysely';
import { type ColumnType, columnTypes, kinds } from '../kinds/index.js';
import { containmentOperators, type OperatorName } from '../kinds/operators.js';
import type { Condition, FieldTarget, Scalar } from '../plan/list-plan.js';
import type { ResolvedResource } from '../resource/registry.js';
import type { DynamicExpressionBuilder } from '../resource/types.js';
import { escapeLike, type Members, type SqlDialect } from './dialect.js';
import { listParam, param, type Slot, type SlotValues } from './slots.js';
import { isSpaceText, spaceText, spaceTextAfter, storedBoolean, storedDatetime } from './storage.js';

type Eb = DynamicExpressionBuilder;
type Bool = Expression<SqlBool>;
type SlotCondition = Condition<SlotValues>;

/** The text patterns of the six textual operators, around the escaped value. */
const likePatterns = {
  contains: (v: string) => `%${v}%`,
  starts_with: (v: string) => `${v}%`,
  ends_with: (v: string) => `%${v}`,
} as const;

/**
 * Equality with text no JSON number or boolean renders as can only match a JSON string's text, so it
 * skips the type test (one path lookup instead of two: the JSON filter of the benchmark, Q6).
 */
function plainEquality(condition: SlotCondition): boolean {
  if (condition.op === 'eq') return condition.value.cls === 'plain-text';
  if (condition.op === 'in') return condition.value.every((slot) => slot.cls === 'plain-text');
  return false;
}

/** How a value of `target` is bound: JSON booleans as text, booleans and datetimes as the engine stores them. */
export function binder(
  dialect: SqlDialect,
  target: Pick<FieldTarget, 'jsonPath' | 'columnType' | 'storage'>,
): (value: Scalar) => unknown {
  if (target.jsonPath) return (value) => (value === true ? 'true' : value === false ? 'false' : value);
  if (target.columnType === 'boolean')
    return (value) => storedBoolean(target.storage, dialect, value as boolean);
  if (target.columnType === 'datetime')
    return (value) => storedDatetime(target.storage, dialect, value as string);
  return dialect.kinds[target.columnType]?.bind ?? ((value) => value);
}

/**
 * A comparison with a datetime stored as `YYYY-MM-DD HH:MM:SS[.ffffff]` text: each as a half-open
 * range between `spaceText` (the instant) and `spaceTextAfter` (one microsecond later), so that
 * `…:00`, `…:00.000000` and `…:00.5` compare as the instants they are, and an index on the column
 * serves every operator.
 */
function spaceTextDatetime(eb: Eb, x: Expression<unknown>, condition: SlotCondition): Bool {
  const at = (slot: Slot<Scalar>) => param(slot, (value) => spaceText(value as string));
  const after = (slot: Slot<Scalar>) => param(slot, (value) => spaceTextAfter(value as string));
  const equal = (slot: Slot<Scalar>) => eb.and([eb(x, '>=', at(slot)), eb(x, '<', after(slot))]);
  switch (condition.op) {
    case 'eq':
      return equal(condition.value);
    case 'neq':
      return eb.not(equal(condition.value));
    case 'gt':
      return eb(x, '>=', after(condition.value));
    case 'gte':
      return eb(x, '>=', at(condition.value));
    case 'lt':
      return eb(x, '<', at(condition.value));
    case 'lte':
      return eb(x, '<', after(condition.value));
    case 'in':
      return eb.or(condition.value.map(equal));
    case 'not_in':
      return eb.not(eb.or(condition.value.map(equal)));
    case 'between':
      return eb.and([eb(x, '>=', at(condition.value[0])), eb(x, '<', after(condition.value[1]))]);
    case 'not_between':
      return eb.or([eb(x, '<', at(condition.value[0])), eb(x, '>=', after(condition.value[1]))]);
    case 'range':
      return condition.to === undefined
        ? eb(x, '>=', at(condition.from))
        : eb.and([eb(x, '>=', at(condition.from)), eb(x, '<', at(condition.to))]);
    default:
      throw new Error(`The operator ${condition.op} does not apply to datetimes.`);
  }
}

const holdsMembers = (op: OperatorName) => (containmentOperators as readonly OperatorName[]).includes(op);

/**
 * Whether the engine has columns of this kind, so that every operator the kind takes compiles on it:
 * a kind whose operators hold members (`has_all`, `has_any`: arrays, SETs, JSON) needs its dialect's
 * `KindSql.holds`, which only an engine with such columns has (JSON arrays: every engine); every other
 * kind is some column of every engine.
 */
export function engineHas(dialect: SqlDialect, type: ColumnType): boolean {
  return dialect.kinds[type]?.holds !== undefined || !kinds[type].operators.some(holdsMembers);
}

/**
 * Every declared column of a kind its engine has no column of (`engineHas`: an `array` on SQLite or
 * MariaDB, a `set` on SQLite or PostgreSQL), one message each naming the resource, the column, why,
 * and what to declare instead. Start-up refuses them (src/core/service.ts), whether or not the catalog
 * was read: each of their filters would otherwise fail at request time.
 */
export function unheldColumns(resources: Iterable<ResolvedResource>, dialect: SqlDialect): string[] {
  const mismatches: string[] = [];
  // What such a column may be declared as here: the engine's own collections, else JSON (whose arrays
  // every engine holds) or text.
  const instead = [
    ...columnTypes.filter(
      (type) => type !== 'json' && kinds[type].operators.some(holdsMembers) && engineHas(dialect, type),
    ),
    'json',
    'string',
  ];
  const or = `${instead.slice(0, -1).join(', ')} or ${instead.at(-1)}`;
  for (const resource of resources)
    for (const column of resource.columns.values()) {
      if (engineHas(dialect, column.type)) continue;
      const kind = kinds[column.type];
      mismatches.push(
        `Resource "${resource.name}": column "${resource.table}.${column.name}" is declared ${kind.label}, but ${dialect.label} has no ${kind.label} columns, so its filters (${kind.operators.filter(holdsMembers).join(', ')}) could never run; declare it as what the column stores (${or}).`,
      );
    }
  return mismatches;
}

/** One operator's condition on `target`'s column (or JSON path) of the table under `alias`. */
export function fieldCondition(
  eb: Eb,
  dialect: SqlDialect,
  target: FieldTarget,
  condition: SlotCondition,
  alias: string,
): Bool {
  const column = eb.ref(`${alias}.${target.column}`);
  const path = target.jsonPath;
  if (condition.op === 'is_null') {
    const isNull = path ? dialect.jsonIsNull(column, path) : eb(column, 'is', null);
    return condition.negate ? eb.not(isNull) : isNull;
  }
  const x: Expression<unknown> = !path
    ? column
    : condition.jsonType === 'number'
      ? dialect.jsonNumber(column, path)
      : condition.jsonType === 'boolean'
        ? dialect.jsonBoolean(column, path)
        : plainEquality(condition)
          ? dialect.jsonText(column, path)
          : dialect.jsonString(column, path);
  if (!path && target.columnType === 'datetime' && isSpaceText(target.storage, dialect))
    return spaceTextDatetime(eb, x, condition);
  const bind = binder(dialect, target);
  const v = (slot: Slot<Scalar>) => param(slot, bind);
  switch (condition.op) {
    case 'eq':
      return eb(x, '=', v(condition.value));
    case 'neq':
      return eb(x, '<>', v(condition.value));
    case 'gt':
      return eb(x, '>', v(condition.value));
    case 'gte':
      return eb(x, '>=', v(condition.value));
    case 'lt':
      return eb(x, '<', v(condition.value));
    case 'lte':
      return eb(x, '<=', v(condition.value));
    case 'is_empty':
      return eb(x, condition.negate ? '<>' : '=', '');
    case 'in':
      return eb(x, 'in', condition.value.map(v));
    case 'not_in':
      return eb(x, 'not in', condition.value.map(v));
    case 'has_all':
    case 'has_any': {
      const holds = dialect.kinds[target.columnType]?.holds;
      // Refused at start-up (`unheldColumns`); reached only by a plan compiled without that check.
      if (!holds)
        throw new Error(
          `${condition.op} on the ${target.columnType} column "${target.column}": ${dialect.name} has no such column (docs/configuration.md, "Column kinds").`,
        );
      const slots = condition.value;
      const members: Members = {
        each: slots.map(v),
        all: listParam(slots, (values) => values.map(bind)),
        classes: slots.map((slot) => slot.cls),
        one: (i, bindMember) => param(slots[i] as Slot<Scalar>, bindMember),
        some: (at, bindList) =>
          listParam(
            at.map((i) => slots[i] as Slot<Scalar>),
            bindList,
          ),
      };
      return holds(x, condition.op === 'has_all', members, target);
    }
    case 'between':
      return eb.and([eb(x, '>=', v(condition.value[0])), eb(x, '<=', v(condition.value[1]))]);
    case 'not_between':
      return eb.or([eb(x, '<', v(condition.value[0])), eb(x, '>', v(condition.value[1]))]);
    case 'range':
      return condition.to === undefined
        ? eb(x, '>=', v(condition.from))
        : eb.and([eb(x, '>=', v(condition.from)), eb(x, '<', v(condition.to))]);
    default: {
      const negate = condition.op.startsWith('not_');
      const base = (negate ? condition.op.slice(4) : condition.op) as keyof typeof likePatterns;
      const pattern = param(condition.value, (text) => likePatterns[base](escapeLike(text)));
      const match = path ? dialect.jsonLike(x, pattern) : dialect.like(x, pattern);
      return negate ? eb.not(match) : match;
    }
  }
}
