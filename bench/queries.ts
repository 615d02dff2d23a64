import { type EngineName, storedInstant } from './engines.js';

/**
 * The benchmark requests, as URLs both servers answer. The endpoint lists newest first
 * (`-created_at`, then `-id`), as most lists do; Q10 and Q11 sort by a nullable column and by a
 * mixed-direction pair.
 */

/** `created_at` of user `id` in the dataset (2023-01-01 plus 10 minutes per id), as `engine` stores it. */
export function createdAtOf(id: number, engine: EngineName = 'pg'): string {
  return storedInstant(engine, new Date(Date.UTC(2023, 0, 1) + id * 600_000).toISOString());
}

/** The service's cursor after user `id` in the default order: its stored `created_at`, then its id. */
const cursorAt = (id: number, engine: EngineName) =>
  Buffer.from(JSON.stringify({ s: '-created_at,-id', d: 'next', v: [createdAtOf(id, engine), id] })).toString(
    'base64url',
  );
/** The record Q12 reads: in every dataset of 1,001 users or more, and not soft-deleted (checked first, like every answer). */
export const READ_ONE_ID = 1_001;
export const cursorPrefix = '/api/users?pagination=cursor&cursor=';
const q2 = 'filter[status]=active&filter[score][gte]=80&filter[name][contains]=ann';

/** The queries on `engine`: only the cursor's stored `created_at` differs between engines. */
export function queriesFor(engine: EngineName) {
  return { ...benchQueries, Q8: `${cursorPrefix}${cursorAt(50_000, engine)}` };
}

export const benchQueries = {
  Q1: '/api/users',
  Q2: `/api/users?${q2}`,
  Q3: '/api/users?filter[roles.name]=editor',
  Q4: '/api/users?include=roles&count=posts',
  Q5: '/api/users?filter[or][0][status]=banned&filter[or][1][score][gte]=95',
  Q6: '/api/users?filter[settings.theme]=dark',
  Q7: '/api/users?page=200',
  Q8: `/api/users?pagination=cursor&cursor=${cursorAt(50_000, 'pg')}`,
  Q9: `/api/users?pagination=simple&${q2}`,
  Q10: '/api/users?pagination=simple&sort=-birthday',
  Q11: '/api/users?pagination=simple&sort=status,-created_at',
  Q12: `/api/users/${READ_ONE_ID}`,
  Q13: '/api/users?pagination=simple&fields[users]=name,email',
  Q14: '/api/users?pagination=simple&include=posts&include_sort[posts]=-created_at&include_limit[posts]=3',
  Q15: '/api/users?pagination=simple&filter[score][gte]=95&sort=-department.name',
  Q16: '/api/users?pagination=simple&filter[score][gte]=95&sort=-posts_count',
  Q17: '/api/users/aggregate?metrics=count&group_by=status',
  Q18: '/api/users/aggregate?metrics=count&group_by=created_at:month&from=2023-01-01&to=2024-01-01',
} as const;

export const benchDescriptions: Record<keyof typeof benchQueries, string> = {
  Q1: 'first page, newest first, with total',
  Q2: 'status=active AND score>=80 AND name contains "ann"',
  Q3: 'users having the role editor (EXISTS)',
  Q4: 'include=roles and count=posts',
  Q5: 'or group: status=banned OR score>=95',
  Q6: 'JSON filter settings.theme=dark',
  Q7: 'page 200 of the unfiltered list',
  Q8: 'a cursor page in the middle (after a created_at)',
  Q9: 'pagination=simple of Q2',
  Q10: 'sort by a nullable date, descending (simple)',
  Q11: 'sort=status,-created_at: mixed directions (simple)',
  Q12: 'read one record by its key',
  Q13: 'sparse fieldset: fields[users]=name,email (simple)',
  Q14: 'users with their 3 newest posts and posts_total (simple, page of 15)',
  Q15: 'score>=95 (6% of users) sorted by a to-one relation: -department.name (simple)',
  Q16: 'score>=95 (6% of users) sorted by a relation count: -posts_count (simple)',
  Q17: 'aggregate: count grouped by status',
  Q18: 'aggregate: a monthly count over 2023 (12 buckets, UTC)',
};

/**
 * Q8 at a different position on every request (1,000 positions, cycled): both servers run the same
 * statement with new values each time, so nothing can be answered from a cache of earlier requests.
 */
export function movingCursor(engine: EngineName): (n: number) => string {
  return (n) => `${cursorPrefix}${cursorAt(1_000 + ((n * 7_919) % 1_000) * 97, engine)}`;
}

/**
 * The count-strategy runs: Q1–Q7 on endpoints that are the same but for `total`
 * (bench/bench-config.ts), each against the baseline's exact count for the same query.
 */
export const strategyEndpoints = { upto: 'users-upto', estimated: 'users-estimated' } as const;
export const lengthAwareQueries = ['Q1', 'Q2', 'Q3', 'Q4', 'Q5', 'Q6', 'Q7'] as const;
export const onEndpoint = (path: string, endpoint: string): string =>
  path.replace(/^\/api\/users(?=\?|$)/, `/api/${endpoint}`);
