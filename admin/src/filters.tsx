import { Box, MenuItem, TextField } from '@mui/material';
import { type ReactElement, useEffect, useState } from 'react';
import { BooleanInput, SearchInput, useInput } from 'react-admin';
import {
  type FilterOperator,
  operatorShape,
  type SchemaDocument,
  type SchemaFilter,
} from '../../src/client/index.js';

/** How an operator reads after the filter's label ("Score ≥ 80"). */
const operatorLabels: Readonly<Record<string, string>> = {
  eq: 'is',
  neq: 'is not',
  gt: '>',
  gte: '≥',
  lt: '<',
  lte: '≤',
  contains: 'contains',
  not_contains: 'does not contain',
  starts_with: 'starts with',
  not_starts_with: 'does not start with',
  ends_with: 'ends with',
  not_ends_with: 'does not end with',
  is_null: 'has no value',
  is_not_null: 'has a value',
  is_empty: 'is blank',
  is_not_empty: 'is not blank',
  date_eq: 'on the day',
  date_between: 'between the days',
  year: 'in the year',
  in: 'is one of',
  not_in: 'is none of',
  between: 'between',
  not_between: 'not between',
  has_all: 'has all of',
  has_any: 'has any of',
};

/** What a filter starts with: "contains" for text, else "is" (or its first operator). */
function defaultOperator(filter: SchemaFilter): string {
  if (!filter.options && filter.value === 'string' && filter.operators.includes('contains'))
    return 'contains';
  return filter.operators.includes('eq') ? 'eq' : (filter.operators[0] ?? 'eq');
}

/** The HTML input type for one value of a filter (`date` for calendar operators). */
function inputType(filter: SchemaFilter, op: string): string {
  const shape = operatorShape(op as FilterOperator);
  if (shape === 'date' || shape === 'datePair') return 'date';
  if (shape === 'year') return 'number';
  if (shape === 'text' || shape === 'list') return 'text';
  if (filter.value === 'integer' || filter.value === 'decimal' || filter.value === 'bigint') return 'number';
  if (filter.value === 'date') return 'date';
  if (filter.value === 'datetime') return 'datetime-local';
  return 'text';
}

/** A `datetime-local` value is the browser's local time: the service is sent the instant. */
const instant = (type: string, text: string): string => {
  if (type !== 'datetime-local' || text === '') return text;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? text : date.toISOString();
};

const isPair = (op: string) => ['pair', 'datePair'].includes(operatorShape(op as FilterOperator));

type FilterState = { op: string; first: string; second: string; many: string[] };

/**
 * A filter's value in the list's filter object (the data provider's form): a plain value for `is`,
 * `{ <operator>: value }` for any other operator, undefined while the inputs are incomplete.
 */
function filterValue(filter: SchemaFilter, { op, first, second, many }: FilterState): unknown {
  const type = inputType(filter, op);
  switch (operatorShape(op as FilterOperator)) {
    case 'flag':
      return { [op]: true };
    case 'pair':
    case 'datePair':
      return first !== '' && second !== ''
        ? { [op]: [instant(type, first), instant(type, second)] }
        : undefined;
    case 'list': {
      const values = filter.options
        ? many
        : first
            .split(',')
            .map((item) => item.trim())
            .filter((item) => item !== '');
      return values.length > 0 ? { [op]: values } : undefined;
    }
    default:
      if (first === '') return undefined;
      return op === 'eq' ? instant(type, first) : { [op]: instant(type, first) };
  }
}

/** The inputs' state of a value read back from the list's filter (the address, a saved query). */
function stateOf(filter: SchemaFilter, value: unknown): FilterState {
  const empty = { op: defaultOperator(filter), first: '', second: '', many: [] };
  if (value === undefined || value === null || value === '') return empty;
  if (typeof value !== 'object') return { ...empty, op: 'eq', first: String(value) };
  const [op, operand] = Object.entries(value as Record<string, unknown>)[0] ?? [];
  if (!op || !filter.operators.includes(op)) return empty;
  const items = Array.isArray(operand) ? operand.map(String) : [];
  return {
    op,
    first: Array.isArray(operand) ? (filter.options ? '' : items.join(', ')) : String(operand ?? ''),
    second: Array.isArray(operand) && isPair(op) ? (items[1] ?? '') : '',
    many: filter.options ? items : [],
  };
}

/** One filter of the list: its operators (those the schema document gives it) and its value. */
function OperatorFilterInput({ filter, source }: { filter: SchemaFilter; source: string; label: string }) {
  const { field } = useInput({ source });
  const [state, setState] = useState<FilterState>(() => stateOf(filter, field.value));
  // The value can change from outside (the address, a cleared filter): the inputs follow it.
  const outside = JSON.stringify(field.value ?? null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `outside` is the value, compared as text
  useEffect(() => {
    setState((current) =>
      JSON.stringify(filterValue(filter, current) ?? null) === outside
        ? current
        : stateOf(filter, field.value),
    );
  }, [outside, filter]);
  const update = (changes: Partial<FilterState>) => {
    const next = { ...state, ...changes };
    setState(next);
    field.onChange(filterValue(filter, next));
  };
  const shape = operatorShape(state.op as FilterOperator);
  const type = inputType(filter, state.op);
  const options = filter.options;
  const single = (value: string, onChange: (text: string) => void, label: string) =>
    options && shape === 'scalar' ? (
      <TextField
        select
        size="small"
        label={label}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        sx={{ minWidth: 140 }}
      >
        {options.map((option) => (
          <MenuItem key={String(option.value)} value={String(option.value)}>
            {option.label}
          </MenuItem>
        ))}
      </TextField>
    ) : (
      <TextField
        size="small"
        label={label}
        type={type}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        slotProps={{ inputLabel: { shrink: true } }}
        placeholder={shape === 'list' ? 'a, b, c' : undefined}
      />
    );
  return (
    <Box sx={{ display: 'flex', gap: 1, alignItems: 'center', mb: 0.5 }} data-filter={filter.name}>
      <TextField
        select
        size="small"
        label={filter.label}
        value={state.op}
        onChange={(event) => update({ op: event.target.value, first: '', second: '', many: [] })}
        sx={{ minWidth: 150 }}
        slotProps={{ htmlInput: { 'aria-label': `${filter.label} operator` } }}
      >
        {filter.operators.map((op) => (
          <MenuItem key={op} value={op}>
            {operatorLabels[op] ?? op}
          </MenuItem>
        ))}
      </TextField>
      {shape === 'flag' ? null : shape === 'list' && options ? (
        <TextField
          select
          size="small"
          label="Values"
          value={state.many}
          onChange={(event) => {
            const value = event.target.value as unknown;
            update({ many: Array.isArray(value) ? value.map(String) : String(value).split(',') });
          }}
          slotProps={{ select: { multiple: true } }}
          sx={{ minWidth: 160 }}
        >
          {options.map((option) => (
            <MenuItem key={String(option.value)} value={String(option.value)}>
              {option.label}
            </MenuItem>
          ))}
        </TextField>
      ) : (
        single(state.first, (first) => update({ first }), isPair(state.op) ? 'From' : 'Value')
      )}
      {isPair(state.op) ? single(state.second, (second) => update({ second }), 'To') : null}
    </Box>
  );
}

/**
 * A relation filter's name (`department.name`) as a filter input's source: react-admin's filter form
 * would read the dots as nesting, and its values of nested inputs with operators lose their operator.
 * `/` is in no filter's name; `dottedFilter` turns the list's filter back before a request.
 */
const filterSource = (name: string) => name.replaceAll('.', '/');

/** The list's filter object with the relation filters' names as the service takes them. */
export function dottedFilter(
  filter: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (!filter) return filter;
  return Object.fromEntries(Object.entries(filter).map(([key, value]) => [key.replaceAll('/', '.'), value]));
}

/** The filters the list offers: a JSON column's free paths (`settings.*`) take no form here. */
const offered = (schema: SchemaDocument) =>
  schema.table.filters.filter((filter) => filter.name !== 'trashed' && !filter.name.endsWith('.*'));

/**
 * react-admin's filter inputs for a list, from its schema document: the search (when a column is
 * searchable), "Include deleted" (when `trashed` is allowed), and one input per filter with its operators.
 */
export function listFilters(schema: SchemaDocument): ReactElement[] {
  const inputs: ReactElement[] = [];
  if (schema.table.columns.some((column) => column.searchable))
    inputs.push(<SearchInput key="q" source="q" alwaysOn />);
  if (schema.table.softDeletes.enabled && schema.table.filters.some((filter) => filter.name === 'trashed'))
    inputs.push(<BooleanInput key="trashed" source="trashed" label="Include deleted" />);
  for (const filter of offered(schema))
    inputs.push(
      <OperatorFilterInput
        key={filter.name}
        source={filterSource(filter.name)}
        label={filter.label}
        filter={filter}
      />,
    );
  return inputs;
}
