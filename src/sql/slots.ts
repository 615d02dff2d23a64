import type { CursorValue, PlanValues, Scalar } from '../plan/list-plan.js';
import { isPlainJsonText } from '../plan/values.js';

/**
 * What the compiler may know about a value without seeing it: the choices it makes from a value (JSON
 * type tests, NULL in keyset conditions, booleans) depend on this and nothing else.
 */
export type ValueClass = 'null' | 'boolean' | 'number' | 'text' | 'plain-text';

export function classOf(value: Scalar | null): ValueClass {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return 'number';
  // Text no JSON number or boolean renders as: JSON equality with it needs no type test.
  return isPlainJsonText(value) ? 'plain-text' : 'text';
}

/** Where a client value goes in a prepared shape: its index among the request's values, and its class. */
export class Slot<T> {
  /** The type of the value this slot stands for (compile-time only). */
  declare readonly valueType: T;
  constructor(
    readonly index: number,
    readonly cls: ValueClass,
  ) {}
}

/** The plan the compiler sees: every client value replaced by its slot. */
export interface SlotValues extends PlanValues {
  readonly scalar: Slot<Scalar>;
  readonly text: Slot<string>;
}

/**
 * A parameter of a compiled shape: the value of slot `index`, turned into what the database binds
 * (a LIKE pattern, 1/0 for a boolean…). Kysely carries it through compilation like any value.
 */
export class Param {
  constructor(
    readonly index: number,
    readonly bind: (value: never) => unknown,
  ) {}
}

/**
 * Several client values bound as one parameter (a PostgreSQL array): the values of slots `indices`, in
 * order, turned by `bind` into what the database compares.
 */
export class ListParam {
  constructor(
    readonly indices: readonly number[],
    readonly bind: (values: never[]) => unknown,
  ) {}
}

/** How a page of rows is cut, with slots: what the compiler gets (`RowsOptions` in prepared.ts has the values). */
export interface SlotRowsOptions {
  limit?: number;
  offset?: Slot<number>;
  after?: readonly Slot<CursorValue>[];
  reverse?: boolean;
}

/** A client value as a bound parameter: `bind` turns it into what the database compares. */
export function param<T>(slot: Slot<T>, bind: (value: T) => unknown = (value) => value): Param {
  return new Param(slot.index, bind as (value: never) => unknown);
}

/** Client values as one bound parameter: `bind` turns the list into what the database compares. */
export function listParam<T>(slots: readonly Slot<T>[], bind: (values: T[]) => unknown): ListParam {
  return new ListParam(
    slots.map((slot) => slot.index),
    bind as (values: never[]) => unknown,
  );
}
