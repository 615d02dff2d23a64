import type { AggregatePlan } from '../plan/aggregate-plan.js';
import { BoundedMap } from '../plan/bounded-map.js';
import type {
  Condition,
  CursorValue,
  FieldTarget,
  FilterNode,
  QueryShape,
  Scalar,
} from '../plan/list-plan.js';
import type { EndpointPolicy } from '../resource/policy.js';
import { type ResolvedResource, reachesScope } from '../resource/registry.js';
import { type AggregateShape, ListCompiler } from './compile.js';
import type { DynamicDb, SqlDialect, Statement } from './dialect.js';
import { binder } from './operators.js';
import { classOf, ListParam, Param, param, Slot, type SlotRowsOptions, type SlotValues } from './slots.js';

/** How a page of rows is cut, with real values (`after`: the sort values of the record to continue past). */
export interface RowsOptions {
  limit?: number;
  offset?: number;
  after?: readonly CursorValue[];
  reverse?: boolean;
}

/** A plan's filters walked once: what `Templater.shape` makes of them, kept for the next request. */
interface WalkedShape {
  readonly of: QueryShape;
  /** Its part of the key, joined. */
  readonly parts: string;
  readonly values: readonly unknown[];
  readonly shape: QueryShape<SlotValues>;
  readonly cacheable: boolean;
}

/**
 * Whether two plans with the same filters array make the same SQL: a cursor's page is its scroll's plan
 * with the cursor added (core/list/plans.ts), the arrays and the rest shared.
 */
const sameShape = (a: QueryShape, b: QueryShape): boolean =>
  a.withTrashed === b.withTrashed &&
  a.sort === b.sort &&
  a.counts === b.counts &&
  a.columns === b.columns &&
  a.resource === b.resource;

/**
 * One walk over a plan that yields, together: the plan with slots, the values in slot order, and a key
 * naming everything the SQL depends on (structure, operators, value classes, list lengths). Two plans
 * with the same key compile to the same SQL with the same parameters in the same places.
 */
class Templater {
  values: unknown[] = [];
  private parts: string[] = [];
  /** False when the SQL comes from the user's callbacks, which may depend on more than the key. */
  cacheable = true;

  get key(): string {
    return this.parts.join('|');
  }

  mark(...parts: (string | number | boolean)[]): void {
    for (const part of parts) this.parts.push(String(part));
  }

  slot<T extends Scalar | CursorValue>(value: T): Slot<T> {
    const slot = new Slot<T>(this.values.length, classOf(value));
    this.values.push(value);
    this.parts.push(slot.cls);
    return slot;
  }

  /**
   * The plan with slots. A plan's filters are the same array in every request that reuses its plan
   * (a cached plan, a cursor's page of one): their walk is taken from `walked` when it was made for
   * the same filters, trashed flag, sort and counts, so such a request only binds its values.
   */
  shape(shape: QueryShape, walked?: WeakMap<object, WalkedShape>): QueryShape<SlotValues> {
    // Slot indices count from the first value: only a walk that starts with none can be reused.
    const reusable = walked !== undefined && this.values.length === 0;
    const known = reusable ? walked.get(shape.where) : undefined;
    if (known && sameShape(known.of, shape)) {
      this.parts.push(known.parts);
      this.values = known.values.slice();
      this.cacheable = known.cacheable;
      return known.shape;
    }
    const first = this.parts.length;
    this.mark('trashed', shape.withTrashed, 'where', shape.where.length);
    const where = shape.where.map((node) => this.node(node));
    this.mark('sort', ...shape.sort.map((term) => `${term.name} ${term.direction}`));
    this.mark('counts', ...shape.counts.map((relation) => relation.name));
    this.mark('columns', shape.columns?.join(',') ?? '*');
    const slotted = { ...shape, where };
    if (reusable)
      walked.set(shape.where, {
        of: shape,
        parts: this.parts.slice(first).join('|'),
        values: this.values.slice(),
        shape: slotted,
        cacheable: this.cacheable,
      });
    return slotted;
  }

  /** Equality of each key column with its value, after the plan's filters: one record's statement. */
  keyed(
    shape: QueryShape<SlotValues>,
    targets: readonly FieldTarget[],
    values: readonly Scalar[],
  ): QueryShape<SlotValues> {
    this.mark('key', targets.length);
    const byKey = targets.map(
      (target, i): FilterNode<SlotValues> => ({
        kind: 'field',
        target,
        conditions: [{ op: 'eq', value: this.slot(values[i] as Scalar) }],
      }),
    );
    return { ...shape, where: [...shape.where, ...byKey], sort: [] };
  }

  rows(options: RowsOptions): SlotRowsOptions {
    this.mark('limit', options.limit ?? 'none', 'reverse', options.reverse === true);
    const template: SlotRowsOptions = { limit: options.limit, reverse: options.reverse };
    // OFFSET 0 is left out of the SQL, so "no offset" is part of the shape.
    if (options.offset) {
      this.mark('offset');
      template.offset = this.slot(options.offset);
    }
    if (options.after) {
      this.mark('after', options.after.length);
      template.after = options.after.map((value) => this.slot(value));
    }
    return template;
  }

  node(node: FilterNode): FilterNode<SlotValues> {
    switch (node.kind) {
      case 'and':
      case 'or': {
        this.mark(`(${node.kind}`, node.children.length);
        const children = node.children.map((child) => this.node(child));
        this.mark(')');
        return { kind: node.kind, children };
      }
      case 'scope':
      case 'custom':
        this.cacheable = false;
        return node;
      case 'field': {
        const { target } = node;
        this.mark(
          'field',
          target.hops.map((hop) => hop.name).join('.'),
          target.column,
          target.jsonPath?.join('.') ?? '',
          node.conditions.length,
        );
        return { ...node, conditions: node.conditions.map((condition) => this.condition(condition)) };
      }
    }
  }

  private condition(condition: Condition): Condition<SlotValues> {
    const { jsonType } = condition;
    this.mark(condition.op, jsonType ?? '');
    switch (condition.op) {
      case 'is_null':
      case 'is_empty':
        this.mark(condition.negate);
        return condition;
      case 'in':
      case 'not_in':
      case 'has_all':
      case 'has_any':
        this.mark(condition.value.length);
        return { op: condition.op, jsonType, value: condition.value.map((value) => this.slot(value)) };
      case 'between':
      case 'not_between':
        return {
          op: condition.op,
          jsonType,
          value: [this.slot(condition.value[0]), this.slot(condition.value[1])],
        };
      case 'range': {
        const from = this.slot(condition.from);
        if (condition.to === undefined) {
          this.mark('open');
          return { op: 'range', jsonType, from };
        }
        return { op: 'range', jsonType, from, to: this.slot(condition.to) };
      }
      case 'contains':
      case 'not_contains':
      case 'starts_with':
      case 'not_starts_with':
      case 'ends_with':
      case 'not_ends_with':
        return { op: condition.op, jsonType, value: this.slot(condition.value) };
      default:
        return { op: condition.op, jsonType, value: this.slot(condition.value) };
    }
  }
}

/** SQL text and its parameters, slots still in place: compiled once per shape. */
export interface CompiledShape {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

function bindValues(shape: CompiledShape, values: readonly unknown[], preparable = false): Statement {
  const parameters = shape.parameters.map((parameter) =>
    parameter instanceof Param
      ? parameter.bind(values[parameter.index] as never)
      : parameter instanceof ListParam
        ? parameter.bind(parameter.indices.map((index) => values[index]) as never[])
        : parameter,
  );
  return preparable ? { sql: shape.sql, parameters, preparable } : { sql: shape.sql, parameters };
}

/**
 * A statement compiled outside a list's prepared shapes (a constrained include's): its filters and its
 * other client values as slots, so that one compilation serves every request of the same `key`, each
 * bound with its own values.
 */
export class SlottedStatement {
  private readonly templater = new Templater();
  readonly nodes: readonly FilterNode<SlotValues>[];

  constructor(nodes: readonly FilterNode[]) {
    this.nodes = nodes.map((node) => this.templater.node(node));
  }

  /** A value bound as a parameter (the slot's class is part of the key). */
  value(value: Scalar): Param {
    return param(this.templater.slot(value));
  }

  /** What the SQL depends on: the filters' structure, operators and value classes, and the values' count. */
  get key(): string {
    return this.templater.key;
  }

  /** False when a filter runs a callback (a scope, a custom filter): its SQL may differ each time. */
  get cacheable(): boolean {
    return this.templater.cacheable;
  }

  bind(compiled: CompiledShape): Statement {
    return bindValues(compiled, this.templater.values);
  }
}

/** Shapes kept per endpoint; past this the oldest is dropped (a client varying its filters cannot grow memory). */
const DEFAULT_MAX_SHAPES = 500;

/** A cached plan's page statement bound once, with the cut it was bound for. */
interface BoundRows {
  readonly limit: number | undefined;
  readonly offset: number | undefined;
  readonly reverse: boolean | undefined;
  readonly statement: Statement;
}

/** A cached plan's page after a cursor: its SQL, and the plan's own values that precede the cut's. */
interface CursorRows {
  readonly shape: CompiledShape;
  readonly head: readonly unknown[];
  readonly preparable: boolean;
}

/** Cursor cuts kept per plan: the cursor values' classes vary little (a null sorts among values). */
const MAX_CURSOR_ROWS = 8;

/** Page statements kept per plan: its URL asks for one page; a stream or an oversized probe adds a few. */
const MAX_BOUND_ROWS = 4;

/** A statement that is handed to every request of its plan: frozen, so no reader can change it for the next. */
const shared = (statement: Statement): Statement =>
  Object.freeze({ ...statement, parameters: Object.freeze(statement.parameters.slice()) });

/**
 * The SQL of an endpoint's lists, compiled once per request shape (filters, operators, sort, page form)
 * and reused with each request's values: building and compiling a Kysely query costs more than the rest
 * of a request's own work. Plans that run callbacks (custom filters, scopes, `baseQuery`, a row scope
 * of any resource the endpoint can reach) are compiled every time: a callback may build different SQL
 * from one call to the next, and may embed a value of the request's context.
 */
export class PreparedQueries {
  private readonly shapes: BoundedMap<string, CompiledShape>;
  /**
   * The walk of each plan's filters (Templater.shape), for as long as the plan is kept; none when
   * nothing is kept (`maxShapes` 0: every request compiled anew, the reference the tests compare with).
   */
  private readonly reuse: WeakMap<object, WalkedShape> | undefined;
  private readonly callbacks: boolean;
  /** Read-one's statements by plan and by the classes of the key values (`one`). */
  private readonly ones = new WeakMap<
    QueryShape,
    Map<string, { readonly keys: readonly FieldTarget[]; readonly shape: CompiledShape }>
  >();
  /**
   * A cached plan's page and count statements, bound: a plan is immutable and its SQL depends on its
   * key alone (`compiled(…).cached`), so the statement of a repeated URL — a list's first page, a polled
   * view — is the same every time and skips the templater's walk, key and lookup.
   */
  private readonly boundRows = new WeakMap<QueryShape, BoundRows[]>();
  /**
   * A cached plan's pages after a cursor, by their cut and the cursor values' classes: the statement's
   * SQL is known, and only the cursor's values are bound (a scrolled list asks for these all day).
   * Each page's plan is a new object (its cursor added to its scroll's plan): they are found by the
   * filters array they share, as the walk of `Templater.shape` is.
   */
  private readonly cursorRows = new WeakMap<object, { of: QueryShape; cuts: Map<string, CursorRows> }>();
  private readonly boundCounts = new WeakMap<QueryShape, Statement>();

  constructor(
    private readonly db: DynamicDb,
    private readonly dialect: SqlDialect,
    private readonly policy: EndpointPolicy,
    resource: ResolvedResource,
    private readonly maxShapes = DEFAULT_MAX_SHAPES,
  ) {
    this.callbacks = policy.baseQuery !== undefined || reachesScope(resource);
    this.shapes = new BoundedMap(maxShapes);
    this.reuse = maxShapes > 0 ? new WeakMap() : undefined;
  }

  /** `count(*)` of the filtered records. */
  count(plan: QueryShape, ctx: unknown): Statement {
    const known = this.boundCounts.get(plan);
    if (known) return known;
    const templater = new Templater();
    templater.mark('count');
    const shape = templater.shape(plan, this.reuse);
    const compiled = this.compiled(templater, () => this.compiler(shape, ctx).countQuery().compile());
    // No filter value bound: the count of every request of the plan has the same best plan.
    const statement = bindValues(
      compiled.shape,
      templater.values,
      compiled.keyed && templater.values.length === 0,
    );
    if (!compiled.cached) return statement;
    const kept = shared(statement);
    this.boundCounts.set(plan, kept);
    return kept;
  }

  /** `count(*)` of at most `limit` filtered records (the first step of an `exactUpTo` total). */
  boundedCount(plan: QueryShape, limit: number, ctx: unknown): Statement {
    const templater = new Templater();
    templater.mark('bounded', limit);
    const shape = templater.shape(plan, this.reuse);
    return this.prepare(templater, () => this.compiler(shape, ctx).boundedCountQuery(limit).compile());
  }

  /**
   * The dialect's EXPLAIN of the filtered records, with the request's values bound: the planner's
   * estimate of the count. Undefined where the dialect has no estimate.
   */
  estimate(plan: QueryShape, ctx: unknown): Statement | undefined {
    const estimate = this.dialect.rowEstimate;
    if (!estimate) return undefined;
    const templater = new Templater();
    templater.mark('estimate');
    const shape = templater.shape(plan, this.reuse);
    return this.prepare(templater, () => {
      const compiled = this.compiler(shape, ctx).matchQuery().compile();
      return { sql: estimate.explain(compiled.sql), parameters: compiled.parameters };
    });
  }

  /** A page of records (or all of them) in the plan's order. */
  rows(plan: QueryShape, options: RowsOptions, ctx: unknown): Statement {
    const { limit, offset, reverse, after } = options;
    // The slots `Templater.rows` makes, in its order: the offset when there is one, then the cursor's.
    const cut =
      after && `${limit}|${reverse === true}|${offset ? 'offset' : ''}|${after.map(classOf).join(',')}`;
    const scroll = cut === undefined ? undefined : this.cursorRows.get(plan.where);
    const afterCursor = scroll && sameShape(scroll.of, plan) ? scroll.cuts.get(cut as string) : undefined;
    if (afterCursor && after) {
      const values = offset ? [...afterCursor.head, offset, ...after] : [...afterCursor.head, ...after];
      return bindValues(afterCursor.shape, values, afterCursor.preparable);
    }
    // A page after a cursor binds the cursor's values: those differ from request to request.
    const bound = after === undefined ? this.boundRows.get(plan) : undefined;
    if (bound)
      for (const known of bound)
        if (known.limit === limit && known.offset === offset && known.reverse === reverse)
          return known.statement;
    const templater = new Templater();
    templater.mark('rows');
    const shape = templater.shape(plan, this.reuse);
    // Values bound so far are the filters'; the page's cut (limit, offset, cursor) comes next.
    const filterValues = templater.values.length;
    const rowsOptions = templater.rows(options);
    const compiled = this.compiled(templater, () =>
      this.compiler(shape, ctx).rowsQuery(rowsOptions).compile(),
    );
    const preparable = compiled.keyed && filterValues === 0;
    const statement = bindValues(compiled.shape, templater.values, preparable);
    if (!compiled.cached) return statement;
    if (cut !== undefined) {
      let kept = this.cursorRows.get(plan.where);
      if (!kept || !sameShape(kept.of, plan)) {
        kept = { of: plan, cuts: new Map() };
        this.cursorRows.set(plan.where, kept);
      }
      if (kept.cuts.size < MAX_CURSOR_ROWS)
        kept.cuts.set(cut, {
          shape: compiled.shape,
          head: templater.values.slice(0, filterValues),
          preparable,
        });
      return statement;
    }
    const kept = bound ?? [];
    if (kept.length >= MAX_BOUND_ROWS) kept.shift();
    const remembered = { limit, offset, reverse, statement: shared(statement) };
    kept.push(remembered);
    if (!bound) this.boundRows.set(plan, kept);
    return remembered.statement;
  }

  /**
   * One record: the plan's filters and equality of each key column with its value, without order or
   * LIMIT (equality on every key column finds one row or none; SQLite spends more on a bound LIMIT
   * than on the key lookup itself, docs/benchmarks.md).
   */
  one(plan: QueryShape, keys: readonly FieldTarget[], values: readonly Scalar[], ctx: unknown): Statement {
    // The same plan (a cached one: the record's query string) with key values of the same classes is
    // the same statement: bound at once, without building its key again (a read-one's path is short).
    // One key column, the common case: its class is the key, without an array and a join.
    const classes = values.length === 1 ? classOf(values[0] as Scalar) : values.map(classOf).join(',');
    const known = this.ones.get(plan)?.get(classes);
    if (known?.keys === keys) return bindValues(known.shape, values, true);
    const templater = new Templater();
    templater.mark('one');
    const shape = templater.keyed(templater.shape(plan, this.reuse), keys, values);
    const compiled = this.compiled(templater, () => this.compiler(shape, ctx).rowsQuery({}).compile());
    // Only where the key values are all the statement binds (no filter values) and the SQL is the key's.
    const keyOnly = compiled.keyed && templater.values.length === values.length;
    if (keyOnly && compiled.cached) {
      let byClasses = this.ones.get(plan);
      if (!byClasses) {
        byClasses = new Map();
        this.ones.set(plan, byClasses);
      }
      byClasses.set(classes, { keys, shape: compiled.shape });
    }
    return bindValues(compiled.shape, templater.values, keyOnly);
  }

  /**
   * An aggregate over the plan's rows: its shape (metrics, groups, order, the number of buckets and
   * of having conditions) is the key, bucket bounds and having values are bound like filter values.
   */
  aggregate(plan: AggregatePlan, ctx: unknown): Statement {
    const templater = new Templater();
    templater.mark('aggregate');
    const shape = templater.shape(plan.shape, this.reuse);
    templater.mark(
      'metrics',
      ...plan.metrics.map((metric) => metric.name),
      'groups',
      ...plan.groups.map((group) => group.name),
      'order',
      ...plan.order.map((term) => `${term.of}${term.index}${term.direction}`),
      'limit',
      plan.limit,
      'having',
      ...plan.having.map((term) => `${term.metric}${term.op}`),
    );
    const having = plan.having.map((term) => ({ ...term, value: templater.slot(term.value) }));
    templater.mark('buckets', plan.buckets?.ranges.length ?? 'none');
    const ranges = plan.buckets?.ranges;
    // Buckets are contiguous: each one's end is the next one's start.
    const bounds =
      ranges &&
      [ranges[0]?.[0], ...ranges.map(([, high]) => high)].map((value) => templater.slot(value as string));
    const dialect = this.dialect;
    const aggregate: AggregateShape = {
      metrics: plan.metrics,
      groups: plan.groups,
      order: plan.order,
      having,
      ...(bounds && { bounds }),
      limit: plan.limit + 1,
      bind: (column, value) => binder(dialect, { columnType: column.type, storage: column.storage })(value),
    };
    const paths = plan.groups.flatMap((group) => (group.kind === 'path' ? [group.hops] : []));
    return this.prepare(templater, () =>
      new ListCompiler(this.db, this.dialect, shape, this.policy, ctx, paths)
        .aggregateQuery(aggregate)
        .compile(),
    );
  }

  private compiler(shape: QueryShape<SlotValues>, ctx: unknown): ListCompiler {
    return new ListCompiler(this.db, this.dialect, shape, this.policy, ctx);
  }

  private prepare(templater: Templater, compile: () => CompiledShape): Statement {
    return bindValues(this.compiled(templater, compile).shape, templater.values);
  }

  /** The templater's shape, from the cache or compiled (and kept when its SQL depends on its key alone). */
  private compiled(
    templater: Templater,
    compile: () => CompiledShape,
  ): { readonly shape: CompiledShape; readonly cached: boolean; readonly keyed: boolean } {
    // Its SQL depends on its key alone (no callback makes it): kept, unless nothing is kept.
    const keyed = templater.cacheable && !this.callbacks;
    const cacheable = keyed && this.maxShapes > 0;
    const key = cacheable ? templater.key : undefined;
    let shape = key === undefined ? undefined : this.shapes.get(key);
    if (!shape) {
      const compiled = compile();
      shape = { sql: compiled.sql, parameters: compiled.parameters };
      if (key !== undefined) this.shapes.set(key, shape);
    }
    return { shape, cached: cacheable, keyed };
  }
}
