import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LONG_QUERY } from '../src/client/calls.js';
import { operatorShapes, type ValueShape } from '../src/kinds/operators.js';
import { defineEndpoint, Filter } from '../src/resource/policy.js';
import { dialects } from './support/databases.js';
import { posts, profiles, roles, type UserRow, userRoles, users } from './support/fixture.js';
import { type Host, hostNames, type InjectOptions, type InjectResponse, startHost } from './support/hosts.js';
import {
  byIdDesc,
  expectedUsers,
  expectUsers,
  ids,
  lower,
  ms,
  utcDay,
  visibleUsers,
} from './support/oracle.js';
import { testServiceConfig, useService } from './support/service.js';

/** A query (without `per_page`) and the oracle deciding which visible users it matches. */
type Case = [query: string, predicate: (user: UserRow) => boolean];

const has = (text: string, part: string) => lower(text).includes(lower(part));
const starts = (text: string, part: string) => lower(text).startsWith(lower(part));
const ends = (text: string, part: string) => lower(text).endsWith(lower(part));
const all = () => true;
const none = () => false;
/**
 * No visible user's own text or datetime column is empty or NULL: related ones are (a profile's
 * website, a post's published_at), so their cases select some users for those operators.
 */
const profileOf = (u: UserRow) => profiles.find((p) => p.user_id === u.id);
const website = (u: UserRow) => profileOf(u)?.website;
const livePostsOf = (u: UserRow) => posts.filter((p) => p.user_id === u.id && p.deleted_at === null);

const stringCases: Case[] = [
  ['filter[status]=active', (u) => u.status === 'active'],
  ['filter[status][eq]=inactive', (u) => u.status === 'inactive'],
  ['filter[name]=Anna%20Smith', (u) => u.name === 'Anna Smith'],
  ['filter[email][eq]=bob@test.io', (u) => u.email === 'bob@test.io'],
  ['filter[status][neq]=banned', (u) => u.status !== 'banned'],
  ['filter[status][gt]=banned', (u) => u.status > 'banned'],
  ['filter[status][gte]=banned', (u) => u.status >= 'banned'],
  ['filter[status][lt]=banned', (u) => u.status < 'banned'],
  ['filter[status][lte]=banned', (u) => u.status <= 'banned'],
  ['filter[email][gt]=d', (u) => u.email > 'd'],
  ['filter[name][contains]=ann', (u) => has(u.name, 'ann')],
  ['filter[name][not_contains]=ann', (u) => !has(u.name, 'ann')],
  ['filter[name][starts_with]=ann', (u) => starts(u.name, 'ann')],
  ['filter[name][not_starts_with]=ann', (u) => !starts(u.name, 'ann')],
  ['filter[email][ends_with]=.org', (u) => ends(u.email, '.org')],
  ['filter[email][not_ends_with]=.org', (u) => !ends(u.email, '.org')],
  ['filter[email][contains]=@example.', (u) => has(u.email, '@example.')],
  ['filter[status][in]=active,banned', (u) => ['active', 'banned'].includes(u.status)],
  ['filter[status][not_in]=active,banned', (u) => !['active', 'banned'].includes(u.status)],
  ['filter[status][in]=inactive', (u) => u.status === 'inactive'],
  ['filter[status][between]=active,banned', (u) => u.status >= 'active' && u.status <= 'banned'],
  ['filter[status][not_between]=active,banned', (u) => u.status < 'active' || u.status > 'banned'],
  ['filter[name][is_empty]=1', (u) => u.name === ''],
  ['filter[name][is_not_empty]=true', (u) => u.name !== ''],
  ['filter[name][is_empty]=false', (u) => u.name !== ''],
  ['filter[email][is_null]=true', none],
  ['filter[email][is_not_null]=1', all],
  ['filter[profile.website][is_empty]=true', (u) => website(u) === ''],
  ['filter[profile.website][is_not_empty]=true', (u) => typeof website(u) === 'string' && website(u) !== ''],
  ['filter[profile.website][is_null]=true', (u) => profileOf(u) !== undefined && website(u) === null],
  ['filter[profile.website][is_not_null]=1', (u) => typeof website(u) === 'string'],
  ['filter[status]=nobody', none],
];

const integerCases: Case[] = [
  ['filter[score]=85', (u) => u.score === 85],
  ['filter[score][eq]=0', (u) => u.score === 0],
  ['filter[score][neq]=85', (u) => u.score !== 85],
  ['filter[score][gt]=80', (u) => u.score > 80],
  ['filter[score][gte]=80', (u) => u.score >= 80],
  ['filter[score][lt]=55', (u) => u.score < 55],
  ['filter[score][lte]=55', (u) => u.score <= 55],
  ['filter[score][gt]=-1', (u) => u.score > -1],
  ['filter[score][in]=0,100', (u) => [0, 100].includes(u.score)],
  ['filter[score][not_in]=0,100', (u) => ![0, 100].includes(u.score)],
  ['filter[score][between]=42,85', (u) => u.score >= 42 && u.score <= 85],
  ['filter[score][not_between]=42,85', (u) => u.score < 42 || u.score > 85],
  ['filter[score][is_null]=1', none],
  ['filter[score][is_not_null]=1', all],
  ['filter[score]=2147483647', (u) => u.score === 2147483647],
  ['filter[score][gte]=-2147483648', all],
  ['filter[id][lte]=3', (u) => u.id <= 3],
  ['filter[department_id]=2', (u) => u.department_id === 2],
  ['filter[department_id][is_null]=true', (u) => u.department_id === null],
  ['filter[department_id][is_not_null]=true', (u) => u.department_id !== null],
  ['filter[department_id][gte]=2', (u) => u.department_id !== null && u.department_id >= 2],
];

const decimalCases: Case[] = [
  ['filter[balance]=100.5', (u) => u.balance === 100.5],
  ['filter[balance]=100.50', (u) => u.balance === 100.5],
  ['filter[balance]=-20', (u) => u.balance === -20],
  ['filter[balance][eq]=-20.0', (u) => u.balance === -20],
  ['filter[balance][neq]=0', (u) => u.balance !== 0],
  ['filter[balance][gt]=0', (u) => u.balance > 0],
  ['filter[balance][gt]=.5', (u) => u.balance > 0.5],
  ['filter[balance][gte]=0', (u) => u.balance >= 0],
  ['filter[balance][lt]=0', (u) => u.balance < 0],
  ['filter[balance][lte]=5.25', (u) => u.balance <= 5.25],
  ['filter[balance][gt]=80.0', (u) => u.balance > 80],
  ['filter[balance][between]=-20,5.25', (u) => u.balance >= -20 && u.balance <= 5.25],
  ['filter[balance][not_between]=0,100', (u) => u.balance < 0 || u.balance > 100],
  ['filter[balance][in]=0,5.25,1000', (u) => [0, 5.25, 1000].includes(u.balance)],
  ['filter[balance][not_in]=0,5.25,1000', (u) => ![0, 5.25, 1000].includes(u.balance)],
  ['filter[balance][is_null]=1', none],
];

const booleanCases: Case[] = [
  ['filter[is_admin]=true', (u) => u.is_admin],
  ['filter[is_admin]=1', (u) => u.is_admin],
  ['filter[is_admin][eq]=false', (u) => !u.is_admin],
  ['filter[is_admin]=0', (u) => !u.is_admin],
  ['filter[is_admin][neq]=true', (u) => !u.is_admin],
  ['filter[is_admin][neq]=0', (u) => u.is_admin],
  ['filter[is_admin][in]=true', (u) => u.is_admin],
  ['filter[is_admin][in]=false,true', all],
  ['filter[is_admin][not_in]=true', (u) => !u.is_admin],
  ['filter[is_admin][is_null]=1', none],
  ['filter[is_admin][is_not_null]=1', all],
];

const birthday = (u: UserRow) => u.birthday;
const dateCases: Case[] = [
  ['filter[birthday]=1990-05-14', (u) => u.birthday === '1990-05-14'],
  ['filter[birthday][neq]=1990-05-14', (u) => birthday(u) !== null && u.birthday !== '1990-05-14'],
  ['filter[birthday][gt]=1990-05-14', (u) => birthday(u) !== null && (u.birthday as string) > '1990-05-14'],
  ['filter[birthday][gte]=1990-05-14', (u) => birthday(u) !== null && (u.birthday as string) >= '1990-05-14'],
  ['filter[birthday][lt]=1995-07-04', (u) => birthday(u) !== null && (u.birthday as string) < '1995-07-04'],
  ['filter[birthday][lte]=1995-07-04', (u) => birthday(u) !== null && (u.birthday as string) <= '1995-07-04'],
  [
    'filter[birthday][between]=1985-12-31,1990-05-14',
    (u) =>
      birthday(u) !== null &&
      (u.birthday as string) >= '1985-12-31' &&
      (u.birthday as string) <= '1990-05-14',
  ],
  [
    'filter[birthday][not_between]=1986-01-01,1999-01-01',
    (u) =>
      birthday(u) !== null &&
      ((u.birthday as string) < '1986-01-01' || (u.birthday as string) > '1999-01-01'),
  ],
  [
    'filter[birthday][in]=2000-02-29,1995-07-04',
    (u) => ['2000-02-29', '1995-07-04'].includes(u.birthday ?? ''),
  ],
  [
    'filter[birthday][not_in]=2000-02-29,1995-07-04',
    (u) => birthday(u) !== null && !['2000-02-29', '1995-07-04'].includes(u.birthday as string),
  ],
  ['filter[birthday][date_eq]=2000-02-29', (u) => u.birthday === '2000-02-29'],
  [
    'filter[birthday][date_between]=1990-01-01,1999-12-31',
    (u) =>
      birthday(u) !== null &&
      (u.birthday as string) >= '1990-01-01' &&
      (u.birthday as string) <= '1999-12-31',
  ],
  ['filter[birthday][year]=1985', (u) => (u.birthday ?? '').startsWith('1985-')],
  ['filter[birthday][year]=2000', (u) => (u.birthday ?? '').startsWith('2000-')],
  ['filter[birthday][is_null]=true', (u) => u.birthday === null],
  ['filter[birthday][is_not_null]=true', (u) => u.birthday !== null],
];

const at = (u: UserRow) => ms(u.created_at);
const datetimeCases: Case[] = [
  ['filter[created_at]=2024-01-15T10:00:00Z', (u) => at(u) === ms('2024-01-15T10:00:00Z')],
  ['filter[created_at][eq]=2024-01-15T10:00:00.000Z', (u) => at(u) === ms('2024-01-15T10:00:00Z')],
  ['filter[created_at]=2024-01-15T11:00:00%2B01:00', (u) => at(u) === ms('2024-01-15T10:00:00Z')],
  ['filter[created_at]=2024-01-15T10:00', (u) => at(u) === ms('2024-01-15T10:00:00Z')],
  ['filter[created_at][neq]=2024-01-15T10:00:00Z', (u) => at(u) !== ms('2024-01-15T10:00:00Z')],
  ['filter[created_at][gt]=2024-01-15T23:30:00Z', (u) => at(u) > ms('2024-01-15T23:30:00Z')],
  ['filter[created_at][gte]=2024-01-15T23:30:00Z', (u) => at(u) >= ms('2024-01-15T23:30:00Z')],
  ['filter[created_at][lt]=2024-01-01', (u) => at(u) < ms('2024-01-01T00:00:00Z')],
  ['filter[created_at][lt]=2023-12-31T23:59:59.999Z', (u) => at(u) < ms('2023-12-31T23:59:59.999Z')],
  ['filter[created_at][lte]=2023-12-31T23:59:59.999Z', (u) => at(u) <= ms('2023-12-31T23:59:59.999Z')],
  [
    'filter[created_at][between]=2024-01-15,2024-01-16',
    (u) => at(u) >= ms('2024-01-15T00:00:00Z') && at(u) <= ms('2024-01-16T00:00:00Z'),
  ],
  [
    'filter[created_at][not_between]=2024-01-15,2024-01-16',
    (u) => at(u) < ms('2024-01-15T00:00:00Z') || at(u) > ms('2024-01-16T00:00:00Z'),
  ],
  [
    'filter[created_at][in]=2024-01-15T10:00:00Z,2024-02-01T00:00:00Z',
    (u) => [ms('2024-01-15T10:00:00Z'), ms('2024-02-01T00:00:00Z')].includes(at(u)),
  ],
  [
    'filter[created_at][not_in]=2024-01-15T10:00:00Z,2024-02-01T00:00:00Z',
    (u) => ![ms('2024-01-15T10:00:00Z'), ms('2024-02-01T00:00:00Z')].includes(at(u)),
  ],
  ['filter[created_at][date_eq]=2024-01-15', (u) => utcDay(u.created_at) === '2024-01-15'],
  ['filter[created_at][date_eq]=2024-01-16', (u) => utcDay(u.created_at) === '2024-01-16'],
  ['filter[created_at][date_eq]=2023-12-31', (u) => utcDay(u.created_at) === '2023-12-31'],
  [
    'filter[created_at][date_between]=2024-01-15,2024-01-16',
    (u) => utcDay(u.created_at) >= '2024-01-15' && utcDay(u.created_at) <= '2024-01-16',
  ],
  [
    'filter[created_at][date_between]=2023-12-31,2024-01-15',
    (u) => utcDay(u.created_at) >= '2023-12-31' && utcDay(u.created_at) <= '2024-01-15',
  ],
  ['filter[created_at][year]=2023', (u) => u.created_at.startsWith('2023-')],
  ['filter[created_at][year]=2024', (u) => u.created_at.startsWith('2024-')],
  ['filter[created_at][year]=2025', (u) => u.created_at.startsWith('2025-')],
  ['filter[created_at][is_null]=1', none],
  ['filter[created_at][is_not_null]=1', all],
  ['filter[posts.published_at][is_null]=1', (u) => livePostsOf(u).some((p) => p.published_at === null)],
  ['filter[posts.published_at][is_not_null]=1', (u) => livePostsOf(u).some((p) => p.published_at !== null)],
];

/** The same list written three ways: CSV, `[]` and indexed. */
function listForms(name: string, op: string, values: string[]): string[] {
  const key = `filter[${name}][${op}]`;
  return [
    `${key}=${values.join(',')}`,
    values.map((value) => `${key}[]=${value}`).join('&'),
    values.map((value, index) => `${key}[${index}]=${value}`).join('&'),
  ];
}

const listCases: [name: string, op: string, values: string[], predicate: (user: UserRow) => boolean][] = [
  ['status', 'in', ['active', 'banned'], (u) => ['active', 'banned'].includes(u.status)],
  ['status', 'not_in', ['active', 'banned'], (u) => !['active', 'banned'].includes(u.status)],
  ['score', 'in', ['85', '42', '0'], (u) => [85, 42, 0].includes(u.score)],
  ['score', 'not_in', ['85', '42'], (u) => ![85, 42].includes(u.score)],
  ['score', 'between', ['40', '90'], (u) => u.score >= 40 && u.score <= 90],
  ['score', 'not_between', ['40', '90'], (u) => u.score < 40 || u.score > 90],
  ['balance', 'between', ['-20', '5.25'], (u) => u.balance >= -20 && u.balance <= 5.25],
  ['balance', 'not_between', ['0', '100.5'], (u) => u.balance < 0 || u.balance > 100.5],
  ['is_admin', 'in', ['true'], (u) => u.is_admin],
  [
    'birthday',
    'date_between',
    ['1985-01-01', '1995-12-31'],
    (u) => u.birthday !== null && u.birthday >= '1985-01-01' && u.birthday <= '1995-12-31',
  ],
  [
    'created_at',
    'date_between',
    ['2024-01-15', '2024-01-16'],
    (u) => utcDay(u.created_at) >= '2024-01-15' && utcDay(u.created_at) <= '2024-01-16',
  ],
  [
    'created_at',
    'in',
    ['2024-01-15T10:00:00Z', '2023-12-31T23:59:59.999Z'],
    (u) => [ms('2024-01-15T10:00:00Z'), ms('2023-12-31T23:59:59.999Z')].includes(ms(u.created_at)),
  ],
  ['birthday', 'not_in', ['1990-05-14'], (u) => u.birthday !== null && u.birthday !== '1990-05-14'],
];

const emptyCases: Case[] = [
  ['filter[status]=', all],
  ['filter[score][gte]=', all],
  ['filter[status]=&filter[score][gte]=80', (u) => u.score >= 80],
  ['filter[score][gte]=&filter[score][lte]=50', (u) => u.score <= 50],
  ['filter[status][in]=', all],
  ['filter[status][in][]=', all],
  ['filter[status][in][0]=', all],
  ['filter[status][in][]=&filter[status][in][]=banned', (u) => u.status === 'banned'],
  ['filter[name][contains]=', all],
  ['filter[birthday][is_null]=', all],
  ['filter[score][between]=', all],
  ['filter[created_at][date_eq]=&filter[is_admin]=true', (u) => u.is_admin],
];

const andCases: Case[] = [
  ['filter[score][gte]=50&filter[score][lte]=90', (u) => u.score >= 50 && u.score <= 90],
  [
    'filter[score][gt]=0&filter[score][neq]=85&filter[score][lt]=100',
    (u) => u.score > 0 && u.score !== 85 && u.score < 100,
  ],
  ['filter[name][contains]=a&filter[name][not_contains]=ann', (u) => has(u.name, 'a') && !has(u.name, 'ann')],
  [
    'filter[created_at][gte]=2024-01-01&filter[created_at][lt]=2024-02-01',
    (u) => at(u) >= ms('2024-01-01T00:00:00Z') && at(u) < ms('2024-02-01T00:00:00Z'),
  ],
  ['filter[status]=active&filter[score][gte]=80', (u) => u.status === 'active' && u.score >= 80],
  [
    'filter[status][in]=active,inactive&filter[is_admin]=false&filter[birthday][is_not_null]=1',
    (u) => ['active', 'inactive'].includes(u.status) && !u.is_admin && u.birthday !== null,
  ],
  ['filter[score][gte]=90&filter[score][lte]=10', none],
];

const caseAndWildcardCases: Case[] = [
  ['filter[name][contains]=ANNA', (u) => has(u.name, 'anna')],
  ['filter[name][contains]=AnNa', (u) => has(u.name, 'anna')],
  ['filter[name][starts_with]=JOANNE', (u) => starts(u.name, 'joanne')],
  ['filter[name][ends_with]=SMITH', (u) => ends(u.name, 'smith')],
  ['filter[email][ends_with]=.ORG', (u) => ends(u.email, '.org')],
  ['filter[name][not_starts_with]=ANN', (u) => !starts(u.name, 'ann')],
  ['filter[name][not_ends_with]=REAL', (u) => !ends(u.name, 'real')],
  ['filter[name][contains]=100%25', (u) => u.name.includes('100%')],
  ['filter[name][contains]=%25', (u) => u.name.includes('%')],
  ['filter[name][contains]=_', (u) => u.name.includes('_')],
  ['filter[name][contains]=!', (u) => u.name.includes('!')],
  ['filter[name][contains]=!B', (u) => has(u.name, '!b')],
  ['filter[name][contains]=l_u', (u) => has(u.name, 'l_u')],
  ['filter[name][contains]=l%25u', (u) => has(u.name, 'l%u')],
  ['filter[name][starts_with]=%25', (u) => u.name.startsWith('%')],
  ['filter[name][starts_with]=_', (u) => u.name.startsWith('_')],
  ['filter[name][ends_with]=%25%20Real', (u) => u.name.endsWith('% Real')],
  ['filter[name][ends_with]=_', (u) => u.name.endsWith('_')],
  ['filter[name][not_contains]=_', (u) => !u.name.includes('_')],
  ['filter[name][not_contains]=%25', (u) => !u.name.includes('%')],
  ['filter[name][contains]=%5C', (u) => u.name.includes('\\')],
  ['filter[name][contains]=%5C%25', (u) => u.name.includes('\\%')],
  ['filter[name][contains]=%27', (u) => u.name.includes("'")],
  ['filter[name][contains]=!!', (u) => u.name.includes('!!')],
];

/** Relation and JSON filters whose NULL rows must stay out of the negative operators. */
const nullCases: Case[] = [
  ['filter[department_id][neq]=1', (u) => u.department_id !== null && u.department_id !== 1],
  ['filter[department_id][not_in]=1,2', (u) => u.department_id !== null && ![1, 2].includes(u.department_id)],
  [
    'filter[department_id][not_between]=1,2',
    (u) => u.department_id !== null && (u.department_id < 1 || u.department_id > 2),
  ],
  ['filter[department_id][lt]=3', (u) => u.department_id !== null && u.department_id < 3],
  ['filter[birthday][neq]=1990-05-14', (u) => u.birthday !== null && u.birthday !== '1990-05-14'],
  ['filter[birthday][is_null]=1', (u) => u.birthday === null],
  ['filter[birthday][is_null]=false', (u) => u.birthday !== null],
  ['filter[birthday][is_null]=0', (u) => u.birthday !== null],
  ['filter[birthday][is_not_null]=1', (u) => u.birthday !== null],
  ['filter[birthday][is_not_null]=0', (u) => u.birthday === null],
  ['filter[birthday][is_not_null]=false', (u) => u.birthday === null],
  ['filter[profile.website][is_empty]=1', (u) => profileOf(u)?.website === ''],
  ['filter[profile.website][is_empty]=true', (u) => profileOf(u)?.website === ''],
  [
    'filter[profile.website][is_not_empty]=1',
    (u) => typeof profileOf(u)?.website === 'string' && profileOf(u)?.website !== '',
  ],
  [
    'filter[profile.website][is_empty]=0',
    (u) => typeof profileOf(u)?.website === 'string' && profileOf(u)?.website !== '',
  ],
  ['filter[profile.website][is_null]=1', (u) => profileOf(u) !== undefined && profileOf(u)?.website === null],
  [
    'filter[profile.website][not_contains]=anna',
    (u) => typeof profileOf(u)?.website === 'string' && !has(profileOf(u)?.website as string, 'anna'),
  ],
  [
    'filter[profile.website][neq]=http://carl.io',
    (u) => typeof profileOf(u)?.website === 'string' && profileOf(u)?.website !== 'http://carl.io',
  ],
  [
    'filter[settings.theme][neq]=dark',
    (u) => typeof u.settings?.theme === 'string' && u.settings.theme !== 'dark',
  ],
  [
    'filter[settings.theme][not_in]=dark,light',
    (u) => typeof u.settings?.theme === 'string' && !['dark', 'light'].includes(u.settings.theme),
  ],
  [
    'filter[settings.language][not_contains]=e',
    (u) => typeof u.settings?.language === 'string' && !has(u.settings.language, 'e'),
  ],
];

/**
 * A case matching no visible user or every one passes on a filter that is ignored or that matches
 * nothing: each operator of a table that has one also has a case matching some users and not others.
 */
describe('the filter case tables', () => {
  const tables: [table: string, cases: Case[]][] = [
    ['string', stringCases],
    ['integer', integerCases],
    ['decimal', decimalCases],
    ['boolean', booleanCases],
    ['date', dateCases],
    ['datetime', datetimeCases],
    ['case and wildcard', caseAndWildcardCases],
    ['NULL', nullCases],
  ];

  /**
   * No column of these types can be NULL (the users' and the relations' the endpoint filters by):
   * their NULL tests match none or all, and the same `is null` selects strictly on the other types.
   */
  const notNullable = ['decimal is_null', 'boolean is_null', 'boolean is_not_null'];

  it('give every operator with a case matching no user or all of them a case matching a strict subset', () => {
    const missing: string[] = [];
    for (const [table, cases] of tables) {
      /** Per operator: whether some case matches none or all, and whether one matches a strict subset. */
      const operators = new Map<string, { whole: string[]; subset: boolean }>();
      for (const [query, predicate] of cases) {
        const single = /^filter\[[^\]]+\](?:\[(\w+)\])?=[^&]*$/.exec(query);
        if (!single) continue;
        const operator = single[1] ?? 'eq';
        const entry = operators.get(operator) ?? { whole: [], subset: false };
        const matched = expectedUsers(predicate).length;
        if (matched === 0 || matched === visibleUsers.length) entry.whole.push(query);
        else entry.subset = true;
        operators.set(operator, entry);
      }
      for (const [operator, { whole, subset }] of operators)
        if (whole.length > 0 && !subset && !notNullable.includes(`${table} ${operator}`))
          missing.push(`${table} ${operator}: ${whole.join(', ')}`);
    }
    expect(missing).toEqual([]);
  });
});

/** The whole matrix, on every database, through the standalone server (the hosts run a subset below). */
for (const dialect of dialects)
  describe(`filters on ${dialect}`, () => {
    const service = useService(dialect, 'filters');

    it("reuses a request shape's statement with other values, each answer as if compiled alone", async () => {
      // Each group is one shape (same filters, operators, list lengths and value classes); the
      // service compiles it for the first request and binds the others' values into it.
      const level = (u: UserRow) => u.settings?.level;
      const theme = (u: UserRow) => u.settings?.theme;
      const sequence: Case[] = [
        ['filter[score][gte]=80', (u) => u.score >= 80],
        ['filter[score][gte]=95', (u) => u.score >= 95],
        ['filter[score][gte]=0', (u) => u.score >= 0],
        ['filter[settings.theme][in]=dark,light', (u) => theme(u) === 'dark' || theme(u) === 'light'],
        ['filter[settings.theme][in]=system,Dark', (u) => theme(u) === 'system' || theme(u) === 'Dark'],
        // Text that reads as a number keeps the JSON type test: another shape, not a reuse.
        ['filter[settings.level][in]=3,high', (u) => level(u) === 'high'],
        ['filter[settings.level][in]=10,7', (u) => level(u) === 10 || level(u) === 7],
        ['filter[settings.level][in]=1.5,3', (u) => level(u) === 1.5 || level(u) === 3],
        [
          'filter[name][contains]=ann&filter[status]=active',
          (u) => has(u.name, 'ann') && u.status === 'active',
        ],
        ['filter[name][contains]=o&filter[status]=banned', (u) => has(u.name, 'o') && u.status === 'banned'],
      ];
      for (const [query, predicate] of sequence) await expectUsers(service, query, predicate);
    });

    it('lists every visible user, newest id first, without filters', async () => {
      const res = await service.get('/api/users?per_page=100');
      expect(res.status).toBe(200);
      expect(ids(res)).toEqual(visibleUsers.map((u) => u.id).sort(byIdDesc));
      expect(ids(res)).not.toContain(7);
    });

    describe('string columns', () => {
      it.each(stringCases)('%s', (query, predicate) => expectUsers(service, query, predicate));
    });
    describe('integer columns', () => {
      it.each(integerCases)('%s', (query, predicate) => expectUsers(service, query, predicate));
    });
    describe('decimal columns', () => {
      it.each(decimalCases)('%s', (query, predicate) => expectUsers(service, query, predicate));
    });
    describe('boolean columns', () => {
      it.each(booleanCases)('%s', (query, predicate) => expectUsers(service, query, predicate));
    });
    describe('date columns', () => {
      it.each(dateCases)('%s', (query, predicate) => expectUsers(service, query, predicate));
    });
    describe('datetime columns (UTC)', () => {
      it.each(datetimeCases)('%s', (query, predicate) => expectUsers(service, query, predicate));

      it('date_eq covers the whole UTC day and nothing of the next one', async () => {
        const res = await service.get('/api/users?filter[created_at][date_eq]=2024-01-15');
        expect(ids(res)).toEqual([2, 1]);
        expect(ids(res)).not.toContain(8);
      });

      it('year=2023 keeps the last millisecond of 2023 only', async () => {
        const res = await service.get('/api/users?filter[created_at][year]=2023');
        expect(ids(res)).toEqual([4]);
      });
    });

    describe('the three list forms give identical results', () => {
      it.each(listCases)('%s %s %j', async (name, op, values, predicate) => {
        const expected = expectedUsers(predicate);
        for (const query of listForms(name, op, values)) {
          const res = await service.get(`/api/users?per_page=100&${query}`);
          expect(res.status, `${query}: ${JSON.stringify(res.body)}`).toBe(200);
          expect(ids(res), query).toEqual(expected);
        }
      });

      it('indexed items are read by index, not by position in the query string', async () => {
        const res = await service.get(
          '/api/users?per_page=100&filter[score][between][1]=90&filter[score][between][0]=40',
        );
        expect(res.status).toBe(200);
        expect(ids(res)).toEqual(expectedUsers((u) => u.score >= 40 && u.score <= 90));
      });

      it('a bracket form keeps a comma inside a value', async () => {
        const res = await service.get(
          '/api/users?per_page=100&filter[name][in][]=Anna%20Smith&filter[name][in][]=a,b',
        );
        expect(res.status).toBe(200);
        expect(ids(res)).toEqual(expectedUsers((u) => u.name === 'Anna Smith' || u.name === 'a,b'));
      });
    });

    describe('empty values are discarded', () => {
      it.each(emptyCases)('%s', (query, predicate) => expectUsers(service, query, predicate));
    });

    describe('several operators and several filters AND together', () => {
      it.each(andCases)('%s', (query, predicate) => expectUsers(service, query, predicate));
    });

    describe('textual operators ignore ASCII case and treat %, _ and ! literally', () => {
      it.each(caseAndWildcardCases)('%s', (query, predicate) => expectUsers(service, query, predicate));

      it('contains=100% matches only "Bob 100% Real"', async () => {
        const res = await service.get('/api/users?filter[name][contains]=100%25');
        expect(ids(res)).toEqual([4]);
      });

      it('contains=_ matches only "Carl_Underscore"', async () => {
        const res = await service.get('/api/users?filter[name][contains]=_');
        expect(ids(res)).toEqual([5]);
      });

      it('differently cased values give the same rows', async () => {
        const variants = ['ann', 'ANN', 'aNn'];
        const results = await Promise.all(
          variants.map((v) => service.get(`/api/users?filter[name][contains]=${v}`)),
        );
        const expected = expectedUsers((u) => has(u.name, 'ann'));
        expect(expected.length).toBeGreaterThan(1);
        for (const res of results) expect(ids(res)).toEqual(expected);
      });
    });

    describe('NULL semantics', () => {
      it.each(nullCases)('%s', (query, predicate) => expectUsers(service, query, predicate));

      it('neq and not_in leave out rows whose column is NULL', async () => {
        const res = await service.get('/api/users?per_page=100&filter[department_id][neq]=1');
        const nullDepartment = users.filter((u) => u.department_id === null).map((u) => u.id);
        expect(nullDepartment.length).toBeGreaterThan(0);
        for (const id of nullDepartment) expect(ids(res)).not.toContain(id);
      });

      it('a NULL website is neither empty nor not empty', async () => {
        const empty = await service.get('/api/users?filter[profile.website][is_empty]=1');
        const notEmpty = await service.get('/api/users?filter[profile.website][is_not_empty]=1');
        expect(ids(empty)).toEqual([2]);
        expect(ids(notEmpty)).toEqual([5, 1]);
        expect([...ids(empty), ...ids(notEmpty)]).not.toContain(3);
      });
    });
  });

/**
 * The hosts' parity subset. A host adapter (the standalone server's direct reads, the Fastify plugin,
 * Express, Hono, fetch) does not decide which rows a filter selects: it carries the request to the
 * core and the answer back. The matrix above runs on every database through the standalone server;
 * through each host runs one request per way a request can differ on that way, each answered — status,
 * the service's headers, body byte for byte — as the standalone server answers the same request:
 * - every operator shape (scalar, text pattern, flag, date, year, list, pair, datePair), a list in its
 *   three forms (CSV, `[]`, indexed) and several filters together: keys and brackets reach the core
 *   as sent;
 * - every kind of filter: a column, a relation path, a JSON path, a scope, a custom filter, trashed,
 *   `or`/`and` groups;
 * - a 422 refusal (a value, and a filter outside the whitelist): status, envelope and headers;
 * - values that need URL-encoding (a space as `%20` and as `+`, `%`, `&`, unicode);
 * - a query past the client's LONG_QUERY in a body: `POST <list>/query` (JSON) and `QUERY` (form).
 * The standalone server's answers are checked against the oracle too: each list selects some users and
 * not all (a refusal names its fields), so a host that dropped or altered any part of a request would
 * answer otherwise. A new path through a host (a new host, a request form) gets a case here; a new
 * operator or column kind goes in the matrix, and in the subset only if it brings a new value shape.
 */
type HostPath =
  | 'column'
  | 'relation path'
  | 'JSON path'
  | 'scope'
  | 'custom filter'
  | 'trashed'
  | 'or/and groups'
  | 'refusal'
  | 'URL-encoded values'
  | 'query in a body';

/** The standalone server's answer to a parity request: these users, or a 422 naming these fields. */
type ParityOracle = { select: (user: UserRow) => boolean; withTrashed?: boolean } | { refused: string[] };

interface ParityCase {
  title: string;
  request: InjectOptions;
  /** The query string, wherever the request carries it. */
  query: string;
  oracle: ParityOracle;
}

const overUrl = (query: string, oracle: ParityOracle): ParityCase => ({
  title: query,
  request: { url: `/api/users?${query}` },
  query,
  oracle,
});
const selecting = (query: string, select: (user: UserRow) => boolean) =>
  overUrl(`per_page=100&${query}`, { select });

const hasRole = (u: UserRow, name: string) =>
  (userRoles[u.id] ?? []).some((id) => roles.find((role) => role.id === id)?.name === name);

/** A list of 100 values (the most a list takes), past LONG_QUERY, naming two users. */
const longQuery = `per_page=100&filter[name][in]=${[
  'Anna%20Smith',
  'Bob%20100%25%20Real',
  ...Array.from({ length: 98 }, (_, i) => `nobody-is-called-this-${String(i).padStart(4, '0')}`),
].join(',')}`;
const inLongQuery = (u: UserRow) => u.name === 'Anna Smith' || u.name === 'Bob 100% Real';

/** The subset, by the path it takes: every path has its cases (the compiler asks for each key). */
const parityPaths: Record<HostPath, ParityCase[]> = {
  column: [
    selecting('filter[score][gt]=80', (u) => u.score > 80),
    selecting('filter[name][contains]=ann', (u) => has(u.name, 'ann')),
    selecting('filter[birthday][is_null]=true', (u) => u.birthday === null),
    selecting('filter[created_at][date_eq]=2024-01-15', (u) => utcDay(u.created_at) === '2024-01-15'),
    selecting('filter[created_at][year]=2023', (u) => u.created_at.startsWith('2023-')),
    ...listForms('status', 'in', ['active', 'banned']).map((query) =>
      selecting(query, (u) => ['active', 'banned'].includes(u.status)),
    ),
    selecting('filter[score][between]=42,85', (u) => u.score >= 42 && u.score <= 85),
    selecting(
      'filter[birthday][date_between]=1990-01-01,1999-12-31',
      (u) => u.birthday !== null && u.birthday >= '1990-01-01' && u.birthday <= '1999-12-31',
    ),
    selecting('filter[status]=active&filter[is_admin]=false', (u) => u.status === 'active' && !u.is_admin),
  ],
  'relation path': [
    selecting('filter[roles.name]=admin', (u) => hasRole(u, 'admin')),
    selecting('filter[profile.website][is_null]=1', (u) => profileOf(u) !== undefined && website(u) === null),
  ],
  'JSON path': [selecting('filter[settings.theme]=dark', (u) => u.settings?.theme === 'dark')],
  scope: [selecting('filter[active]=true', (u) => u.status === 'active')],
  'custom filter': [selecting('filter[email_domain]=example.org', (u) => u.email.endsWith('@example.org'))],
  trashed: [
    overUrl('per_page=100&filter[trashed]=true&filter[status]=active', {
      select: (u) => u.status === 'active',
      withTrashed: true,
    }),
  ],
  'or/and groups': [
    selecting(
      'filter[or][0][status]=banned&filter[or][1][and][0][score][gte]=80&filter[or][1][and][1][is_admin]=true',
      (u) => u.status === 'banned' || (u.score >= 80 && u.is_admin),
    ),
  ],
  refusal: [
    overUrl('filter[score][gt]=abc', { refused: ['filter.score'] }),
    overUrl('filter[password]=x', { refused: ['filter.password'] }),
  ],
  'URL-encoded values': [
    selecting(
      'filter[name][in][]=Anna+Smith&filter[name][in][]=Bob%20100%25%20Real&filter[name][in][]=%C3%A9%26x',
      (u) => u.name === 'Anna Smith' || u.name === 'Bob 100% Real',
    ),
  ],
  'query in a body': [
    {
      title: `POST /api/users/query, ${longQuery.length} characters`,
      request: {
        method: 'POST',
        url: '/api/users/query',
        headers: { 'content-type': 'application/json' },
        payload: { query: longQuery },
      },
      query: longQuery,
      oracle: { select: inLongQuery },
    },
    {
      title: `QUERY /api/users, ${longQuery.length} characters`,
      request: {
        method: 'QUERY',
        url: '/api/users',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: longQuery,
      },
      query: longQuery,
      oracle: { select: inLongQuery },
    },
  ],
};
const parityCases = Object.values(parityPaths).flat();

/** Headers of the connection or of the host application, not of the service's answer. */
const transportHeaders = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'x-powered-by']);

/** What a host must pass back unchanged: the status, the service's headers and the body's text. */
function answerOf(response: InjectResponse) {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers))
    if (value !== undefined && !transportHeaders.has(name))
      headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  return { status: response.statusCode, headers, body: response.body };
}

describe("the hosts' parity subset of the filters", () => {
  it('has a request of every operator shape', () => {
    const shapes = new Set<ValueShape>();
    for (const { query } of parityCases)
      for (const key of new URLSearchParams(query).keys()) {
        if (!key.startsWith('filter[')) continue;
        const operator = [...key.matchAll(/\[(\w+)\]/g)]
          .map((match) => match[1] ?? '')
          .findLast((name): name is keyof typeof operatorShapes => Object.hasOwn(operatorShapes, name));
        shapes.add(operator ? operatorShapes[operator] : 'scalar');
      }
    expect([...shapes].sort()).toEqual([...new Set(Object.values(operatorShapes))].sort());
  });

  it('sends a body query longer than the client would put in a URL', () => {
    expect(longQuery.length).toBeGreaterThan(LONG_QUERY);
  });

  describe('on sqlite', () => {
    const reference = useService('sqlite', 'filters_hosts');

    it.each(parityCases)(
      'the standalone server answers $title as the oracle says',
      async ({ request, oracle }) => {
        const res = await reference.inject(request);
        if ('refused' in oracle) {
          expect(res.statusCode, res.body).toBe(422);
          expect(Object.keys(res.json().errors)).toEqual(oracle.refused);
          return;
        }
        expect(res.statusCode, res.body).toBe(200);
        const expected = expectedUsers(oracle.select, oracle.withTrashed);
        expect(expected.length, 'the case selects some users').toBeGreaterThan(0);
        expect(expected.length, 'the case leaves some users out').toBeLessThan(
          oracle.withTrashed ? users.length : visibleUsers.length,
        );
        expect(ids({ status: res.statusCode, body: res.json() })).toEqual(expected);
      },
    );

    describe.each(hostNames.filter((name) => name !== 'standalone'))('through the %s host', (name) => {
      let host: Host | undefined;
      beforeAll(async () => {
        host = await startHost(name, testServiceConfig(), reference.conn);
      });
      afterAll(() => host?.close());

      it.each(parityCases)('answers $title as the standalone server', async ({ request, oracle }) => {
        if (!host) throw new Error(`The ${name} host did not start.`);
        // The same Host header: the answers' links are built from it.
        const headers = { ...request.headers, host: host.authority };
        const [expected, actual] = await Promise.all([
          reference.inject({ ...request, headers }),
          host.inject(request),
        ]);
        expect(expected.statusCode).toBe('refused' in oracle ? 422 : 200);
        expect(answerOf(actual)).toEqual(answerOf(expected));
      });
    });
  });
});

/** Read by the endpoint's baseQuery on every call: a condition that changes between requests. */
let minimumScore = 0;

describe.each(dialects)('callbacks run on every request on %s', (dialect) => {
  const service = useService(dialect, 'callbacks', {
    endpoints: [
      defineEndpoint({
        resource: 'users',
        path: 'users-moving',
        allowedFilters: [
          'status',
          'active',
          'admins',
          Filter.custom('email_domain', ({ eb, column, value }) =>
            eb(column('email'), 'like', `%@${String(value)}`),
          ),
        ],
        baseQuery: ({ eb, column }) => eb(column('score'), '>=', minimumScore),
      }),
    ],
  });

  it('a baseQuery, a custom filter and a scope are called again for the same request shape', async () => {
    const sequence: [setScore: number, query: string, predicate: (user: UserRow) => boolean][] = [
      [80, 'filter[status]=active', (u) => u.score >= 80 && u.status === 'active'],
      [95, 'filter[status]=active', (u) => u.score >= 95 && u.status === 'active'],
      [0, 'filter[email_domain]=example.org', (u) => u.email.endsWith('@example.org')],
      [0, 'filter[email_domain]=test.io', (u) => u.email.endsWith('@test.io')],
      [0, 'filter[admins]=true', (u) => u.is_admin],
      [0, 'filter[admins]=false', (u) => !u.is_admin],
      [0, 'filter[active]=false', (u) => u.status !== 'active'],
    ];
    for (const [score, query, predicate] of sequence) {
      minimumScore = score;
      const res = await service.get(`/api/users-moving?per_page=100&${query}`);
      expect(res.status, query).toBe(200);
      const expected = expectedUsers((u) => u.score >= score && predicate(u));
      expect(expected.length, `${query}: the fixture must have matches`).toBeGreaterThan(0);
      expect(ids(res), query).toEqual(expected);
    }
  });
});
