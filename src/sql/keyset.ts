import { type Expression, type SqlBool, sql } from 'kysely';
import type { ColumnType, KindColumn, Scalar } from '../kinds/index.js';
import type { CursorValue, SortTerm } from '../plan/list-plan.js';
import type { DynamicExpressionBuilder } from '../resource/types.js';
import { type OrderOperator, type SqlDialect, unplannedValue } from './dialect.js';
import { type Param, param, type Slot } from './slots.js';

type Eb = DynamicExpressionBuilder;
type Bool = Expression<SqlBool>;

/**
 * What a sort term compares: a column reference (`t0.name`), or an expression built where it is used (a
 * relation's count, a sub-query each comparison repeats).
 */
export type SortOperand = string | ((eb: Eb) => Expression<unknown>);

/** One sort term in a keyset condition, with the cursor's value for it (null: the row's was NULL). */
interface KeysetTerm {
  readonly operand: SortOperand;
  /** The cursor's value, kept from the planner (`SqlDialect.unplanned`): the plan is the sort's index. */
  readonly value: Param | Expression<Param> | null;
  readonly nullable: boolean;
  /**
   * The column compared in order with the cursor's value, where its kind is compared otherwise on this
   * engine (`KindSql.compare`: MariaDB's ENUM, by its values' positions); undefined: `column op value`.
   */
  readonly inOrder?: (column: Expression<unknown>, op: OrderOperator) => Bool | undefined;
}

/** What a keyset comparison reads of a sort term's column: its kind and declaration. */
export type SortedColumn = KindColumn & { readonly type: ColumnType };

/**
 * Consecutive sort terms compared with the cursor as one: a row value `(a, b) < (:a, :b)` where the
 * dialect serves that from an index and no NULL can occur; otherwise a single term.
 */
export interface KeysetGroup {
  readonly direction: 'asc' | 'desc';
  /** NOT NULL column and a non-null value: may join a row-value group. */
  readonly plain: boolean;
  readonly terms: KeysetTerm[];
}

/** The conditions (AND-ed) of one branch of a keyset page: see `keysetBranches`. */
export type Branch = (eb: Eb) => Bool[];

/**
 * The sort terms with the cursor's values, grouped as one keyset comparison each (see
 * `keysetCondition`): `operand` tells what each term compares, `nullable` which can hold NULL, `column`
 * the column it sorts by (none for a count), whose kind the dialect may compare in its own way.
 */
export function keysetGroups(
  dialect: SqlDialect,
  sort: readonly SortTerm[],
  slots: readonly Slot<CursorValue>[],
  operand: (term: SortTerm) => SortOperand,
  nullable: (term: SortTerm) => boolean,
  column: (term: SortTerm) => SortedColumn | undefined,
): KeysetGroup[] {
  const groups: KeysetGroup[] = [];
  for (const [i, term] of sort.entries()) {
    const slot = slots[i];
    const present = slot === undefined || slot.cls === 'null' ? undefined : slot;
    const value = present
      ? unplannedValue(
          dialect,
          param(present, (stored) => (typeof stored === 'boolean' ? dialect.bindBoolean(stored) : stored)),
        )
      : null;
    const declared = column(term);
    const compare = declared && dialect.kinds[declared.type]?.compare;
    const inOrder =
      present && declared && compare
        ? (ref: Expression<unknown>, op: OrderOperator) =>
            compare(
              ref,
              op,
              (bind) =>
                unplannedValue(
                  dialect,
                  param(present, (stored) => bind(stored as Scalar)),
                ),
              declared,
            )
        : undefined;
    const item: KeysetTerm = { operand: operand(term), value, nullable: nullable(term), inOrder };
    const last = groups[groups.length - 1];
    // A term compared in the kind's own way is not a member of a row value.
    const plain = !item.nullable && value !== null && !inOrder;
    if (dialect.rowValueKeyset && plain && last?.plain && last.direction === term.direction)
      last.terms.push(item);
    else groups.push({ direction: term.direction, plain, terms: [item] });
  }
  return groups;
}

/**
 * Rows strictly after the cursor's values in sort order, NULL being the smallest value:
 * after(g) = strictlyAfter(g) OR (equal(g) AND after(g + 1)) over the groups of `keysetGroups`; the
 * primary key ends the order. Each non-last group also gets the redundant bound `c >= :c` (`<=`
 * descending) where no NULL is involved, so the index on the sort columns serves a range starting
 * at the cursor rather than a scan from the first row. NULL handling appears only for nullable
 * columns: a NOT NULL column's conditions are the plain ranges an index serves.
 */
export function keysetCondition(eb: Eb, groups: readonly KeysetGroup[]): Bool {
  let condition: Bool | undefined;
  for (let i = groups.length - 1; i >= 0; i--) {
    const group = groups[i] as KeysetGroup;
    const { after, equal, bound } = compare(eb, group);
    const strictlyAfter = after.length > 1 ? eb.or(after) : after[0];
    if (condition === undefined) {
      condition = strictlyAfter ?? sql<SqlBool>`1 = 0`;
      continue;
    }
    const rest = eb.and([equal, condition]);
    condition = strictlyAfter ? eb.or([strictlyAfter, rest]) : rest;
    if (bound) condition = eb.and([bound, condition]);
  }
  return condition ?? sql<SqlBool>`1 = 1`;
}

/**
 * Whether the single condition of `keysetCondition` is one index range: one direction throughout, and
 * every group before the last bounded, so the bound on the first starts the range at the cursor.
 * Otherwise (mixed directions, a nullable column descending, a NULL in the cursor) the rows after
 * the cursor lie in several ranges of the index, and one condition would make it read from the
 * start of the leading column's value, or from the first row.
 */
export function oneRange(groups: readonly KeysetGroup[]): boolean {
  const direction = groups[0]?.direction;
  return groups.every(
    (group, i) => group.direction === direction && (i === groups.length - 1 || bounded(group)),
  );
}

/**
 * The rows after the cursor as disjoint index ranges, in sort order: for each group k, the rows
 * equal to the cursor on the groups before it and strictly after it on k (a nullable descending
 * column gives two: below the value, and NULL).
 */
export function keysetBranches(groups: readonly KeysetGroup[]): Branch[] {
  const branches: Branch[] = [];
  for (const [k, group] of groups.entries())
    for (let part = 0; part < afterParts(group); part++)
      branches.push((eb) => [
        ...groups.slice(0, k).map((before) => compare(eb, before).equal),
        compare(eb, group).after[part] as Bool,
      ]);
  return branches;
}

/** How many disjoint conditions "strictly after the cursor" takes for a group (`compare().after`). */
function afterParts({ direction, terms }: KeysetGroup): number {
  const term = terms[0] as KeysetTerm;
  if (terms.length > 1) return 1;
  if (term.value === null) return direction === 'asc' ? 1 : 0;
  return direction === 'desc' && term.nullable ? 2 : 1;
}

/** Whether a group's comparison has a range bound (`compare().bound`): no NULL can be involved. */
function bounded({ direction, terms }: KeysetGroup): boolean {
  const term = terms[0] as KeysetTerm;
  return terms.length > 1 || (term.value !== null && !(direction === 'desc' && term.nullable));
}

/**
 * One group's comparisons with the cursor: `after`, the conditions (OR-ed) of the rows strictly
 * after it (none: no row is); `equal`; `bound`, the range bound when no NULL is involved.
 */
function compare(eb: Eb, { direction, terms }: KeysetGroup): { after: Bool[]; equal: Bool; bound?: Bool } {
  const strictly: OrderOperator = direction === 'asc' ? '>' : '<';
  const from: OrderOperator = direction === 'asc' ? '>=' : '<=';
  if (terms.length > 1) {
    const columns = sql.join(terms.map((term) => operandOf(eb, term.operand)));
    const values = sql.join(terms.map((term) => term.value));
    const row = (op: string) => sql<SqlBool>`(${columns}) ${sql.raw(op)} (${values})`;
    return { after: [row(strictly)], equal: row('='), bound: row(from) };
  }
  const { operand, value, nullable, inOrder } = terms[0] as KeysetTerm;
  const ref = operandOf(eb, operand);
  if (value === null)
    // Only NULL itself equals NULL; ascending, every value is after it; descending, none is.
    return { after: direction === 'asc' ? [eb(ref, 'is not', null)] : [], equal: eb(ref, 'is', null) };
  // Equality is the engine's own on every kind (and what an index looks up); order may be the kind's.
  const equal = eb(ref, '=', value);
  const ordered = (op: OrderOperator): Bool => inOrder?.(ref, op) ?? eb(ref, op, value);
  if (direction === 'desc' && nullable) return { after: [ordered('<'), eb(ref, 'is', null)], equal };
  // Ascending, NULLs are before any value, so `c > :c` and `c >= :c` leave them out as they should.
  return { after: [ordered(strictly)], equal, bound: ordered(from) };
}

const operandOf = (eb: Eb, operand: SortOperand): Expression<unknown> =>
  typeof operand === 'string' ? eb.ref(operand) : operand(eb);
