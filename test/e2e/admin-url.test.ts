/**
 * The admin's addresses without a browser: a list state written into the URL hash and read back is the
 * same state, and it is the list endpoint's own grammar, so the request it makes plans without errors.
 */
import { describe, expect, it } from 'vitest';
import { dashboardParts, lastMonths, latestMetric, seriesEnd } from '../../admin/src/counts.js';
import { type Condition, newCondition } from '../../admin/src/filters.js';

import { recordNoun, singular } from '../../admin/src/records.js';
import {
  emptyListState,
  type ListState,
  listQuery,
  listSearch,
  listStateFromSearch,
  parseHash,
} from '../../admin/src/routes.js';
import { endpoints } from '../../examples/demo/endpoints.js';
import { resources } from '../../examples/demo/resources.js';
import { buildListQuery } from '../../src/client/index.js';
import { ErrorBag } from '../../src/errors/error-bag.js';
import { authorize } from '../../src/plan/authorize.js';
import { compileEndpoint } from '../../src/plan/endpoint.js';
import { parseListQuery } from '../../src/request/parse.js';
import type { EndpointPolicy } from '../../src/resource/policy.js';
import { resolveResources } from '../../src/resource/resolve.js';
import { buildSchemaDocument } from '../../src/schema/document.js';

const users = endpoints[0] as EndpointPolicy;
const compiled = compileEndpoint(users, resolveResources(resources), undefined);
if (!users.schema) throw new Error('the demo users have no schema');
const schema = buildSchemaDocument(compiled, users.schema, '/api/users');

function condition(filter: string, changes: Partial<Condition>): Condition {
  const found = schema.table.filters.find((candidate) => candidate.name === filter);
  if (!found) throw new Error(`no filter ${filter}`);
  return { ...newCondition(found), ...changes };
}

/** The state without the conditions' ids (new on every read). */
const comparable = (state: ListState) => ({
  ...state,
  conditions: state.conditions.map(({ id: _, ...rest }) => rest),
});

describe('admin list addresses', () => {
  it('parses the routes', () => {
    expect(parseHash('')).toEqual({ view: 'list', search: '' });
    expect(parseHash('#/users?sort=-score&page=2')).toEqual({
      path: 'users',
      view: 'list',
      search: 'sort=-score&page=2',
    });
    expect(parseHash('#/users/new')).toEqual({ path: 'users', view: 'new', search: '' });
    expect(parseHash('#/users/dashboard')).toEqual({ path: 'users', view: 'dashboard', search: '' });
    expect(parseHash('#/users/dashboard/edit')).toEqual({
      path: 'users',
      id: 'dashboard',
      view: 'edit',
      search: '',
    });
    expect(parseHash('#/users/42')).toEqual({ path: 'users', id: '42', view: 'record', search: '' });
    expect(parseHash('#/users/a%2Fb/edit')).toEqual({ path: 'users', id: 'a/b', view: 'edit', search: '' });
    expect(parseHash('#/users/%E0%A4%A')).toMatchObject({ id: '%E0%A4%A', view: 'record' });
  });

  it('leaves defaults out: the first tab, page 1, no conditions', () => {
    expect(listSearch(schema, emptyListState(schema))).toBe('');
    expect(comparable(listStateFromSearch(schema, ''))).toEqual(comparable(emptyListState(schema)));
  });

  it('writes a state in the list grammar and reads back the same state', () => {
    const state: ListState = {
      tab: 'banned',
      sort: '-score',
      search: "o'brien & co",
      trashed: true,
      page: 3,
      perPage: 25,
      conditions: [
        condition('score', { op: 'gte', value: '50' }),
        condition('status', { op: 'in', values: ['active', 'inactive'] }),
        condition('score', { op: 'between', value: '10', value2: '90' }),
        condition('name', { op: 'contains', value: 'a' }),
        condition('name', { op: 'contains', value: 'n' }),
        condition('settings.*', { path: 'theme', op: 'eq', value: 'dark' }),
        condition('birthday', { op: 'is_null', value: 'true' }),
        condition('email', { op: 'in', value: 'a@x.test, b@x.test' }),
      ],
    };
    const search = listSearch(schema, state);
    expect(decodeURIComponent(search)).toBe(
      'tab=banned&filter[score][gte]=50&filter[score][between][0]=10&filter[score][between][1]=90' +
        '&filter[status][in][0]=active&filter[status][in][1]=inactive&filter[name][contains]=a' +
        '&filter[settings.theme]=dark&filter[birthday][is_null]=true' +
        '&filter[email][in][0]=a@x.test&filter[email][in][1]=b@x.test&filter[trashed]=true' +
        "&filter[and][0][name][contains]=n&sort=-score&search=o'brien & co&per_page=25&page=3",
    );
    const read = listStateFromSearch(schema, search);
    // The same conditions, grouped by name the way the grammar writes them.
    expect(listSearch(schema, read)).toBe(search);
    expect(read.tab).toBe('banned');
    expect(read.trashed).toBe(true);
    expect(read.conditions).toHaveLength(8);

    // The request it makes is one the endpoint accepts.
    const bag = new ErrorBag();
    const planned = authorize(
      parseListQuery(buildListQuery(listQuery(schema, read)), compiled.limits, bag),
      compiled,
      bag,
    );
    expect(bag.toEnvelope().errors).toEqual({});
    expect(planned).toBeDefined();
  });

  it('drops what the schema does not offer instead of sending it', () => {
    const read = listStateFromSearch(
      schema,
      'tab=nope&sort=password_hash&page=0&per_page=x&filter[nope]=1&filter[score][like]=2' +
        '&filter[or][0][status]=banned&filter[score][between][0]=1&filter[status]=active',
    );
    expect(read.tab).toBe('all');
    expect(read.sort).toBeUndefined();
    expect(read.page).toBe(1);
    expect(read.perPage).toBeUndefined();
    expect(read.conditions.map(({ filter, op, value }) => ({ filter, op, value }))).toEqual([
      { filter: 'status', op: 'eq', value: 'active' },
    ]);
  });

  it('names one record in the singular', () => {
    expect(recordNoun(schema)).toBe('user');
    expect(
      [
        'Users',
        'Posts',
        'Categories',
        'Statuses',
        'Addresses',
        'Boxes',
        'People',
        'Status',
        'API keys',
        'Blog posts',
        'Houses',
        'News',
        'User',
      ].map(singular),
    ).toEqual([
      'User',
      'Post',
      'Category',
      'Status',
      'Address',
      'Box',
      'Person',
      'Status',
      'API key',
      'Blog post',
      'House',
      'News',
      'User',
    ]);
  });
});

describe('admin dashboard parts', () => {
  const withAggregates = (aggregates: (typeof schema)['table']['aggregates']) => ({
    ...schema,
    table: { ...schema.table, aggregates },
  });
  const demo = schema.table.aggregates;
  if (!demo) throw new Error('the demo users have no aggregates');

  it('the first badge column the endpoint groups by, and its first month bucket, each only when allowed', () => {
    expect(dashboardParts(schema)).toMatchObject({ month: 'created_at:month', months: 12 });
    expect(dashboardParts(schema)?.badge?.key).toBe('status');
    const noBadge = dashboardParts(
      withAggregates({ ...demo, groupBy: ['department.name', 'created_at:month'] }),
    );
    expect(noBadge).toEqual({ badge: undefined, month: 'created_at:month', months: 12 });
    const noMonth = dashboardParts(withAggregates({ ...demo, groupBy: ['status', 'created_at:day'] }));
    expect(noMonth?.badge?.key).toBe('status');
    expect(noMonth?.month).toBeUndefined();
    expect(dashboardParts(withAggregates({ ...demo, maxBuckets: 6 }))?.months).toBe(6);
  });

  it('no dashboard without aggregates, without count, or with neither part', () => {
    expect(dashboardParts(withAggregates(null))).toBeNull();
    expect(dashboardParts(withAggregates({ ...demo, metrics: ['sum:balance'] }))).toBeNull();
    expect(dashboardParts(withAggregates({ ...demo, groupBy: ['department.name'] }))).toBeNull();
  });

  it('the last months end with this one, in the local calendar', () => {
    expect(lastMonths(12, new Date(2024, 2, 15))).toMatchObject({ from: '2023-04-01', to: '2024-04-01' });
    expect(lastMonths(1, new Date(2024, 11, 31, 23))).toMatchObject({ from: '2024-12-01', to: '2025-01-01' });
    expect(lastMonths(12).tz).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
  });

  it('a series ends with the newest month of the data where max:<column> is allowed, else this one', () => {
    expect(demo.metrics).toContain('max:created_at');
    expect(latestMetric(withAggregates(demo), 'created_at:month')).toBe('max:created_at');
    expect(latestMetric(withAggregates({ ...demo, metrics: ['count'] }), 'created_at:month')).toBeUndefined();
    // A date in the local calendar, an instant as it says, nothing (no rows) or nonsense: now.
    expect(lastMonths(12, seriesEnd('2021-12-31'))).toMatchObject({ from: '2021-01-01', to: '2022-01-01' });
    expect(lastMonths(3, seriesEnd('2021-06-15T12:00:00Z'))).toMatchObject({
      from: '2021-04-01',
      to: '2021-07-01',
    });
    const now = new Date(2024, 2, 15);
    expect(seriesEnd(null, now)).toBe(now);
    expect(seriesEnd('yesterday', now)).toBe(now);
  });
});
