import { type ColumnType, columnTypes, kinds } from '../kinds/index.js';
import {
  calendarOperators,
  type OperatorName,
  operatorShapes,
  orderOperators,
  textOperators,
  type ValueShape,
} from '../kinds/operators.js';

export type { OperatorName, ValueShape };

/** What a filter targets: a column kind, or a path inside a JSON column (typed by the value). */
export type TargetKind = ColumnType | 'json-path';

/** A path inside JSON takes the client's value as a number, a boolean or text: every comparison applies. */
const jsonPathOperators: readonly OperatorName[] = [
  ...orderOperators,
  ...textOperators,
  ...calendarOperators,
];

export interface OperatorSpec {
  readonly shape: ValueShape;
  readonly targets: readonly TargetKind[];
}

export const operatorNames = Object.keys(operatorShapes) as OperatorName[];

/** Each operator: the value it takes (kinds/operators.ts) and the targets it applies to (each kind says). */
export const operators = {} as Record<OperatorName, OperatorSpec>;
for (const name of operatorNames)
  operators[name] = {
    shape: operatorShapes[name],
    targets: [
      ...columnTypes.filter((type) => kinds[type].operators.includes(name)),
      ...(jsonPathOperators.includes(name) ? (['json-path'] as const) : []),
    ],
  };

export function isOperator(name: string): name is OperatorName {
  return Object.hasOwn(operatorShapes, name);
}

/** The operators a filter on this kind of target accepts (what the schema endpoint will advertise). */
export function operatorsFor(kind: TargetKind): OperatorName[] {
  return operatorNames.filter((name) => operators[name].targets.includes(kind));
}
