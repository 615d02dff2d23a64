import { useState } from 'react';
import {
  type FilterOperator,
  operatorShape,
  type SchemaDocument,
  type SchemaFilter,
} from '../../src/client/index.js';
import {
  type Condition,
  newCondition,
  operatorLabel,
  panelFilters,
  toLeaf,
  valueInputType,
} from './filters.js';

/** Conditions built only from `table.filters` and their `operators`; applied together (AND). */
export function FilterPanel({
  schema,
  applied,
  onApply,
}: {
  schema: SchemaDocument;
  applied: Condition[];
  onApply: (conditions: Condition[]) => void;
}) {
  const filters = panelFilters(schema);
  const [draft, setDraft] = useState<Condition[]>(applied);
  const first = filters[0];

  const change = (id: number, changes: Partial<Condition>) =>
    setDraft((all) =>
      all.map((condition) => (condition.id === id ? { ...condition, ...changes } : condition)),
    );

  return (
    <form
      id="filter-panel"
      className="filter-panel"
      data-testid="filter-panel"
      aria-label="Filters"
      onSubmit={(event) => {
        event.preventDefault();
        onApply(draft.filter((condition) => toLeaf(condition, schema) !== undefined));
      }}
    >
      {draft.length === 0 && <p className="muted">No conditions.</p>}
      {draft.map((condition, index) => {
        const filter = filters.find((candidate) => candidate.name === condition.filter) ?? first;
        if (!filter) return null;
        const n = index + 1;
        return (
          <fieldset key={condition.id} className="condition" data-testid="condition">
            <legend>Condition {n}</legend>
            <label>
              Filter
              <select
                value={filter.name}
                onChange={(event) => {
                  const next = filters.find((candidate) => candidate.name === event.target.value);
                  if (next) change(condition.id, { ...newCondition(next), id: condition.id });
                }}
              >
                {filters.map((candidate) => (
                  <option key={candidate.name} value={candidate.name}>
                    {candidate.label}
                  </option>
                ))}
              </select>
            </label>
            {filter.name.endsWith('.*') && (
              <label>
                Key path
                <input
                  type="text"
                  value={condition.path}
                  placeholder="theme"
                  onChange={(event) => change(condition.id, { path: event.target.value })}
                />
              </label>
            )}
            <label>
              Operator
              <select
                value={condition.op}
                onChange={(event) =>
                  change(condition.id, { op: event.target.value, value: '', value2: '', values: [] })
                }
              >
                {filter.operators.map((op) => (
                  <option key={op} value={op}>
                    {operatorLabel(op)}
                  </option>
                ))}
              </select>
            </label>
            <ValueInput
              filter={filter}
              condition={condition}
              onChange={(changes) => change(condition.id, changes)}
            />
            <button
              type="button"
              className="link"
              onClick={() => setDraft((all) => all.filter((candidate) => candidate.id !== condition.id))}
            >
              Remove condition {n}
            </button>
          </fieldset>
        );
      })}
      <div className="buttons">
        {first && (
          <button type="button" onClick={() => setDraft((all) => [...all, newCondition(first)])}>
            Add condition
          </button>
        )}
        <button type="submit" className="primary">
          Apply filters
        </button>
        {applied.length > 0 && (
          <button
            type="button"
            onClick={() => {
              setDraft([]);
              onApply([]);
            }}
          >
            Clear filters
          </button>
        )}
      </div>
    </form>
  );
}

function ValueInput({
  filter,
  condition,
  onChange,
}: {
  filter: SchemaFilter;
  condition: Condition;
  onChange: (changes: Partial<Condition>) => void;
}) {
  const shape = operatorShape(condition.op as FilterOperator);
  if (shape === 'flag' || (shape === 'scalar' && filter.value === 'boolean'))
    return (
      <label>
        Value
        <select
          value={condition.value || 'true'}
          onChange={(event) => onChange({ value: event.target.value })}
        >
          <option value="true">true</option>
          <option value="false">false</option>
        </select>
      </label>
    );
  if (shape === 'list' && filter.options)
    return (
      <fieldset className="options">
        <legend>Values</legend>
        {filter.options.map((option) => {
          const value = String(option.value);
          return (
            <label key={value} className="inline">
              <input
                type="checkbox"
                checked={condition.values.includes(value)}
                onChange={(event) =>
                  onChange({
                    values: event.target.checked
                      ? [...condition.values, value]
                      : condition.values.filter((item) => item !== value),
                  })
                }
              />
              {option.label}
            </label>
          );
        })}
      </fieldset>
    );
  if (shape === 'scalar' && filter.options)
    return (
      <label>
        Value
        <select value={condition.value} onChange={(event) => onChange({ value: event.target.value })}>
          <option value="">—</option>
          {filter.options.map((option) => (
            <option key={String(option.value)} value={String(option.value)}>
              {option.label}
            </option>
          ))}
        </select>
      </label>
    );
  const type = shape === 'list' ? 'text' : valueInputType(filter, condition.op);
  if (shape === 'pair' || shape === 'datePair')
    return (
      <>
        <label>
          From
          <input
            type={type}
            value={condition.value}
            onChange={(event) => onChange({ value: event.target.value })}
          />
        </label>
        <label>
          To
          <input
            type={type}
            value={condition.value2}
            onChange={(event) => onChange({ value2: event.target.value })}
          />
        </label>
      </>
    );
  return (
    <label>
      {shape === 'list' ? 'Values (comma-separated)' : 'Value'}
      <input
        type={type}
        value={condition.value}
        step={type === 'number' && filter.value === 'decimal' ? 'any' : undefined}
        onChange={(event) => onChange({ value: event.target.value })}
      />
    </label>
  );
}
