/**
 * What a user declares of an endpoint's schema document (spec 2.4): the table's columns and tabs, the
 * form's inputs, the detail's fields. Part of the configuration, like the policy it sits in; the
 * document served from it is built in `schema/`.
 */
import type { DefaultFilterValue } from './types.js';

/** When a form input is shown (evaluated by `schema/visible-when.ts`, in browsers and in the server). */
export interface VisibleWhen {
  field: string;
  is: unknown;
  operator?: string;
}

import type { InputType, TableColumnType } from '../kinds/index.js';

export type { InputType, TableColumnType };

export interface SelectOption {
  value: string | number;
  label: string;
}

/** What a user declares for one endpoint; everything the policy already knows is derived, not repeated. */
export interface SchemaDeclaration {
  /** Used for `table.title`, `form.title` and as the base of ids; defaults to the resource name. */
  title?: string;
  /**
   * What names one record: a visible column (`name`, `title`), or several whose values, joined by a
   * space, make its title (`['first_name', 'last_name']`). `detail.title` (the first) and
   * `detail.titleColumns` (all) in the document; absent, a record is titled by its resource and key.
   */
  recordTitle?: string | readonly string[];
  table: {
    id?: string;
    title?: string;
    columns: TableColumnDeclaration[];
    tabs?: TabDeclaration[];
  };
  form?: {
    id?: string;
    title?: string;
    /** Path of the resource for PATCH `<endpoint>/<id>`; defaults to the list endpoint's path. */
    endpoint?: string;
    inputs: InputDeclaration[];
  };
  detail?: { id?: string; fields: DetailFieldDeclaration[] };
}

export interface TableColumnDeclaration {
  /** A visible column of the resource. */
  key: string;
  label?: string;
  /** Defaults from the column kind: number, text, boolean, date, datetime, json. */
  type?: TableColumnType;
  /** For `badge`: record value → color name. */
  colorMap?: Record<string, string>;
}

export interface TabDeclaration {
  key: string;
  label: string;
  /** Filters the tab applies, written like `defaultFilters`; checked against `allowedFilters` at start-up. */
  filter?: Record<string, DefaultFilterValue>;
}

export interface InputDeclaration {
  name: string;
  label?: string;
  type: InputType;
  /** Layout widths on a 12-column grid: base (default 12) and medium breakpoint (default: `cols`). */
  cols?: number;
  md?: number;
  required?: boolean;
  visibleWhen?: VisibleWhen;
  /** `select` only. */
  options?: SelectOption[];
  /** The column written; defaults to `name` (a password input usually writes `password_hash`). */
  column?: string;
  minLength?: number;
  maxLength?: number;
  /**
   * `references` only: the `belongsToMany` relation whose links the input sets (defaults to `name`),
   * sent as the array of the related records' keys, the whole set.
   */
  relation?: string;
  /** `references` only: the most keys one write may set (default 100; more is a 422). */
  maxItems?: number;
}

export interface DetailFieldDeclaration {
  key: string;
  label?: string;
  type?: TableColumnType;
}
