import qs from 'qs';
import { ConfigurationError } from '../errors/configuration-error.js';
import { kinds } from '../kinds/index.js';
import type { CompiledEndpoint, FilterScope } from '../plan/endpoint.js';
import { operatorsFor, type TargetKind } from '../plan/operators.js';
import { resolvePath } from '../plan/paths.js';
import { exportFormats } from '../request/list-request.js';
import { titleFor } from '../resource/plurals.js';
import type { ResolvedColumn, ResolvedResource } from '../resource/registry.js';
import type {
  InputDeclaration,
  SchemaDeclaration,
  SelectOption,
  TableColumnType,
} from '../resource/schema-declaration.js';
import type { ColumnType } from '../resource/types.js';
import { labelFor, valueLabel } from '../resource/words.js';
import type { DetailRelated, SchemaDocument, SchemaFilter, SchemaReferences } from './types.js';
import { linkTarget } from './update.js';

const tableType = (type: ColumnType): TableColumnType => kinds[type].table;

/** The badge colors of an enum's values when none are declared: the admin's palette, in turn. */
const palette = ['blue', 'green', 'orange', 'purple', 'yellow', 'red', 'gray'];
function valueColors(values: readonly string[] | undefined): Record<string, string> | undefined {
  if (!values) return undefined;
  return Object.fromEntries(values.map((value, i) => [value, palette[i % palette.length] as string]));
}

/** The columns of a declaration's record title, as a list. */
export function titleColumnsOf(declaration: Pick<SchemaDeclaration, 'recordTitle'>): string[] {
  const { recordTitle } = declaration;
  return recordTitle === undefined ? [] : typeof recordTitle === 'string' ? [recordTitle] : [...recordTitle];
}

/**
 * Builds the schema document once, at start-up, from the declaration and the compiled policy, so
 * `sortable`, `searchable`, `filters` and `softDeletes` cannot disagree with what the list endpoint
 * accepts. Fails loudly on anything the resource does not have.
 */
export function buildSchemaDocument(
  endpoint: CompiledEndpoint,
  declaration: SchemaDeclaration,
  listPath: string,
  /** Its to-one relations and its included to-many ones, as the other endpoints' schemas describe them. */
  related: DetailRelated = { relations: [], collections: [] },
  /** The schema document's path of a resource, when an endpoint serves one. */
  schemaPathOf: (resource: string) => string | null = () => null,
): SchemaDocument {
  const { resource } = endpoint;
  const where = `Schema of "${endpoint.path}"`;
  const base = declaration.title ?? titleFor(resource.name);
  // A record's own key reads "ID", not its table's name: `InvoiceId` on Invoice ("Customer" stays a reference's).
  const columnLabel = (key: string) =>
    key === resource.primaryKey && /(^|_)id$|[a-z0-9]Id$|ID$/.test(key) ? 'ID' : labelFor(key);
  const column = (key: string): ResolvedColumn => {
    const found = resource.columns.get(key);
    if (!found || found.hidden) throw new ConfigurationError(`${where}: "${key}" is not a visible column.`);
    return found;
  };
  const searchable = new Set(
    endpoint.searchTargets.filter((target) => target.hops.length === 0).map((target) => target.column),
  );
  const selectOptions = new Map<string, SelectOption[]>();
  for (const input of declaration.form?.inputs ?? [])
    if (input.options) selectOptions.set(input.name, input.options);
  for (const declared of declaration.table.columns)
    if (declared.colorMap && !selectOptions.has(declared.key))
      selectOptions.set(
        declared.key,
        Object.keys(declared.colorMap).map((value) => ({ value, label: valueLabel(value) })),
      );

  const formId = declaration.form?.id ?? `${resource.name}-form`;
  const titleColumns = titleColumnsOf(declaration).map((key) => column(key).name);
  return {
    table: {
      id: declaration.table.id ?? `${resource.name}-table`,
      title: declaration.table.title ?? base,
      columns: declaration.table.columns.map((declared) => {
        const type = declared.type ?? tableType(column(declared.key).type);
        const colorMap = declared.colorMap ?? valueColors(column(declared.key).values);
        if (type === 'badge' && !colorMap)
          throw new ConfigurationError(`${where}: badge column "${declared.key}" needs a colorMap.`);
        return {
          key: declared.key,
          label: declared.label ?? columnLabel(declared.key),
          type,
          sortable: endpoint.allowedSorts.has(declared.key),
          searchable: searchable.has(declared.key),
          formatOptions: colorMap ? { colorMap: { ...colorMap } } : {},
        };
      }),
      filters: schemaFilters(endpoint, selectOptions),
      tabs: (declaration.table.tabs ?? []).map((tab) => ({
        key: tab.key,
        label: tab.label,
        filter: { ...tab.filter },
        query: qs.stringify({ filter: tab.filter ?? {} }, { encodeValuesOnly: true, arrayFormat: 'indices' }),
      })),
      softDeletes: {
        enabled: resource.softDeleteColumn !== undefined && endpoint.exactFilters.has('trashed'),
      },
      total: typeof endpoint.total === 'object' ? { ...endpoint.total } : endpoint.total,
      // Per request: what this context may do (src/core/service.ts).
      actions: [],
      fields: Object.fromEntries(
        [...endpoint.allowedFields].map(([owner, names]) => [
          owner === '' ? resource.name : owner,
          [...names],
        ]),
      ),
      sorts: [...endpoint.allowedSorts.keys()],
      exports: endpoint.allowExport === undefined ? [] : [...exportFormats],
      exportMax: typeof endpoint.allowExport === 'number' ? endpoint.allowExport : null,
      includeConstraints: Object.fromEntries(
        [...endpoint.includeConstraints].map(([path, constraint]) => [
          path,
          {
            // The declared options are the records' inputs', not the related resource's.
            filters: schemaFilters(constraint, new Map()),
            sorts: [...constraint.allowedSorts],
            maxLimit: constraint.maxLimit ?? null,
            largestLimit: constraint.largestLimit,
          },
        ]),
      ),
      aggregates: endpoint.aggregates
        ? {
            metrics: [...endpoint.aggregates.metrics.keys()],
            groupBy: [...endpoint.aggregates.groups.keys()],
            maxGroups: endpoint.aggregates.maxGroups,
            maxBuckets: endpoint.aggregates.maxBuckets,
          }
        : null,
    },
    form: {
      id: formId,
      title: declaration.form?.title ?? base,
      endpoint: declaration.form?.endpoint ?? listPath,
      readOnly: false,
      inputs: (declaration.form?.inputs ?? []).map((input) => {
        const cols = input.cols ?? 12;
        return {
          name: input.name,
          label: input.label ?? labelFor(input.name),
          type: input.type,
          cols,
          md: input.md ?? cols,
          required: input.required ?? false,
          ...(input.visibleWhen ? { visibleWhen: { ...input.visibleWhen } } : {}),
          ...(input.options ? { options: input.options.map((option) => ({ ...option })) } : {}),
          ...(input.minLength !== undefined ? { minLength: input.minLength } : {}),
          ...(input.maxLength !== undefined ? { maxLength: input.maxLength } : {}),
          ...(input.type === 'references' ? { references: referencesOf(resource, input, schemaPathOf) } : {}),
        };
      }),
    },
    detail: {
      id: declaration.detail?.id ?? `${resource.name}-detail`,
      fields: (declaration.detail?.fields ?? declaration.table.columns).map((field) => ({
        key: field.key,
        label: field.label ?? columnLabel(field.key),
        type: field.type ?? tableType(column(field.key).type),
      })),
      title: titleColumns[0] ?? null,
      titleColumns,
      relations: [...related.relations],
      collections: [...related.collections],
    },
  };
}

/** A `references` input's relation, as the document names it (checked as the write checks it). */
function referencesOf(
  resource: ResolvedResource,
  input: InputDeclaration,
  schemaPathOf: (resource: string) => string | null,
): SchemaReferences {
  const { relation, key, maxItems } = linkTarget(resource, input);
  return {
    relation: relation.name,
    resource: relation.target.name,
    key: key.name,
    schema: schemaPathOf(relation.target.name),
    maxItems,
  };
}

function filterFor(
  name: string,
  kind: TargetKind,
  options: Map<string, SelectOption[]>,
  values?: readonly string[],
): SchemaFilter {
  // Declared options (a select input's, a badge's colors) first, else an enum's own values.
  const found = options.get(name) ?? values?.map((value) => ({ value, label: valueLabel(value) }));
  return {
    name,
    label: labelFor(name),
    value: kind,
    operators: operatorsFor(kind),
    ...(found ? { options: found } : {}),
  };
}

/** Every filter `allowedFilters` authorizes, wildcards expanded (except JSON paths, which stay `<column>.*`). */
function schemaFilters(endpoint: FilterScope, options: Map<string, SelectOption[]>): SchemaFilter[] {
  const { resource } = endpoint;
  const filters = new Map<string, SchemaFilter>();
  const add = (filter: SchemaFilter) => {
    if (!filters.has(filter.name)) filters.set(filter.name, filter);
  };
  const columnsOf = (target: ResolvedResource, prefix: string) => {
    for (const column of target.visibleColumns)
      add(filterFor(`${prefix}${column.name}`, column.type, options, column.values));
  };
  for (const name of endpoint.allowedFilterNames) {
    if (endpoint.customFilters.has(name)) {
      add({ name, label: labelFor(name), value: 'custom', operators: ['eq'] });
    } else if (name === '*') {
      columnsOf(resource, '');
    } else if (name === 'trashed' || resource.scopes.has(name)) {
      add({ name, label: labelFor(name), value: 'boolean', operators: ['eq'], options: booleanOptions });
    } else if (name.endsWith('.*')) {
      const owner = name.slice(0, -2);
      const asColumn = resolvePath(resource, owner);
      if (asColumn && asColumn.column.type === 'json') add(filterFor(name, 'json-path', options));
      else {
        let target: ResolvedResource = resource;
        for (const segment of owner.split('.')) {
          const relation = target.relations.get(segment);
          if (relation) target = relation.target;
        }
        columnsOf(target, `${owner}.`);
      }
    } else {
      const path = resolvePath(resource, name);
      if (path)
        add(
          path.target.jsonPath
            ? filterFor(name, 'json-path', options)
            : filterFor(name, path.column.type, options, path.column.values),
        );
    }
  }
  return [...filters.values()];
}

const booleanOptions: SelectOption[] = [
  { value: 'true', label: 'Yes' },
  { value: 'false', label: 'No' },
];
