import type { ExportFormat } from '../request/list-request.js';
import type { Action, TotalStrategy } from '../resource/policy.js';
import type {
  InputType,
  SelectOption,
  TableColumnType,
  VisibleWhen,
} from '../resource/schema-declaration.js';
import type { DefaultFilterValue } from '../resource/types.js';

/** The schema document of spec 2.4, as served. */
export interface SchemaDocument {
  table: {
    id: string;
    title: string;
    columns: {
      key: string;
      label: string;
      type: TableColumnType;
      sortable: boolean;
      searchable: boolean;
      formatOptions: { colorMap?: Record<string, string> };
    }[];
    filters: SchemaFilter[];
    tabs: { key: string; label: string; filter: Record<string, DefaultFilterValue>; query: string }[];
    softDeletes: { enabled: boolean };
    /**
     * How the list's length-aware pages find `total` (`EndpointPolicy.total`): with `'estimated'` or
     * `{ exactUpTo }` a page's `total` may be an estimate (`total_is_estimate: true`); with `'none'` it
     * is null, and so are `last_page` and `last_page_url`.
     */
    total: TotalStrategy;
    /** The actions enabled on the endpoint and allowed to this request's context. */
    actions: Action[];
    /**
     * What `fields` may name (sparse fieldsets), by owner: the resource's name for its records, an
     * include path for an included relation's (`allowedFields`, or every visible column).
     */
    fields: Record<string, string[]>;
    /**
     * Every name `sort` takes (`allowedSorts`): the columns marked `sortable`, and the columns of to-one
     * relations (`department.name`) and relation counts (`posts_count`) no column of the table shows.
     */
    sorts: string[];
    /**
     * The export formats the list offers (`format=csv`, `format=ndjson`): both where the endpoint sets
     * `allowExport` (else `allowAll`), none otherwise. `exportMax`: at most this many records (a 422 over it), or `null`.
     */
    exports: ExportFormat[];
    exportMax: number | null;
    /**
     * What each constrainable include may be narrowed by (`includeConstraints`), by include path: the
     * filters `include_filter[<path>]` takes (as `filters` describes the list's), the columns
     * `include_sort[<path>]` may name, the policy's `maxLimit` (null: none) and the largest
     * `include_limit[<path>]` (`maxLimit`, or 1000). With a `maxLimit` the include is limited to it
     * when the request gives no limit. A limited include adds `<relation>_total` to each record that
     * includes it. An include not named here takes no constraint.
     */
    includeConstraints: Record<string, SchemaIncludeConstraint>;
    /**
     * What `GET <list>/aggregate` computes (`EndpointPolicy.aggregates`), or null where the endpoint
     * has no aggregate route: the metrics and group keys it allows, the most groups an answer holds
     * (cut past it, `meta.truncated`) and the most date buckets a request may span (422 past it).
     */
    aggregates: { metrics: string[]; groupBy: string[]; maxGroups: number; maxBuckets: number } | null;
  };
  form: {
    id: string;
    title: string;
    endpoint: string;
    /**
     * True when this request's context may not update records (`access.update`): `inputs` is then
     * empty, so a frontend offers no edit the server would refuse.
     */
    readOnly: boolean;
    inputs: {
      name: string;
      label: string;
      type: InputType;
      cols: number;
      md: number;
      required: boolean;
      visibleWhen?: VisibleWhen;
      options?: SelectOption[];
      minLength?: number;
      maxLength?: number;
      /** A `references` input: the links of a many-to-many relation, sent as an array of related keys. */
      references?: SchemaReferences;
    }[];
  };
  detail: {
    id: string;
    fields: { key: string; label: string; type: TableColumnType }[];
    /** The column that names a record (`recordTitle`, its first column), or null. */
    title: string | null;
    /**
     * Every column of the record's title, its values joined by a space (`["FirstName", "LastName"]`);
     * empty: a record is titled by the table's title and its key ("Invoice 412").
     */
    titleColumns: string[];
    /** To-one relations by their visible foreign key: how to show a related record by its title. */
    relations: DetailRelation[];
    /**
     * The to-many relations the endpoint includes, in the resource's order: what a record page lists
     * beneath the record ("Posts (12)").
     */
    collections: DetailCollection[];
  };
}

/**
 * One filter a client may use, with the operators it accepts: a frontend that builds only these
 * never gets a 422 for the name or operator. `name` ending in `.*` stands for any path inside a JSON
 * column; `value` says what the value is (a column kind, `json-path`, `boolean` for scopes and
 * `trashed`, `custom`).
 */
export interface SchemaFilter {
  name: string;
  label: string;
  value: string;
  operators: string[];
  options?: SelectOption[];
}

/** What one include may be filtered, sorted and limited by. */
export interface SchemaIncludeConstraint {
  filters: SchemaFilter[];
  sorts: string[];
  maxLimit: number | null;
  largestLimit: number;
}

/** A belongs-to relation of a record, for a frontend that shows the related record's title. */
export interface DetailRelation {
  /** The foreign key column on this record. */
  key: string;
  /** The relation's name, as `include=` takes it. */
  name: string;
  /** Whether this endpoint allows `include=<name>`. */
  included: boolean;
  /** The related resource. */
  resource: string;
  /** The related schema's record-title column (its first), when it has one. */
  title: string | null;
  /** Every column of the related schema's record title (empty: none). */
  titleColumns: string[];
  /** The related resource's schema document, when an endpoint serves one. */
  schema: string | null;
}

/**
 * A to-many relation (`hasMany`, `belongsToMany`) the endpoint allows to include (`allowedIncludes`),
 * for a frontend that lists a record's related records on its page.
 */
export interface DetailCollection {
  /** The relation's name, as `include=` takes it. */
  name: string;
  /** The relation's name as a label (`invoice_lines` → "Invoice lines"). */
  label: string;
  /** The related resource. */
  resource: string;
  /** The related resource's schema document, when an endpoint serves one. */
  schema: string | null;
  /** Every column of the related schema's record title (empty: none). */
  titleColumns: string[];
  /** Whether `count=<name>` is allowed (`allowedCounts`): the read then carries `<name>_count`. */
  counted: boolean;
  /**
   * The largest `include_limit[<name>]` the endpoint takes (`includeConstraints`' `largestLimit`), or
   * null when the include takes no limit (it is not constrainable): it is then read whole.
   */
  limit: number | null;
}

/** The related records a schema document's `detail` describes, worked out from every endpoint. */
export type DetailRelated = Pick<SchemaDocument['detail'], 'relations' | 'collections'>;

/**
 * What a `references` input sets: the whole set of a many-to-many relation's links, as the array of the
 * related records' keys (`"tracks": [3, 7, 12]`). Enough for a frontend to build an autocomplete over
 * the related resource's list (its `search`, titled by its schema's record title).
 */
export interface SchemaReferences {
  /** The relation's name, as `include=` takes it (a read's `include=<relation>` gives the records). */
  relation: string;
  /** The related resource. */
  resource: string;
  /** The related key each item is a value of (its column). */
  key: string;
  /** The related resource's schema document, when an endpoint serves one. */
  schema: string | null;
  /** The most keys one write sets (more is a 422). */
  maxItems: number;
}
