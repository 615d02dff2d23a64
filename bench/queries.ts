/** The nine benchmark requests (issue: Q1–Q9), as URLs both servers answer. */
const cursorAt = (id: number) =>
  Buffer.from(JSON.stringify({ s: '-id', d: 'next', v: [id] })).toString('base64url');
const q2 = 'filter[status]=active&filter[score][gte]=80&filter[name][contains]=ann';

export const benchQueries = {
  Q1: '/api/users',
  Q2: `/api/users?${q2}`,
  Q3: '/api/users?filter[roles.name]=editor',
  Q4: '/api/users?include=roles&count=posts',
  Q5: '/api/users?filter[or][0][status]=banned&filter[or][1][score][gte]=95',
  Q6: '/api/users?filter[settings.theme]=dark',
  Q7: '/api/users?page=200',
  Q8: `/api/users?pagination=cursor&cursor=${cursorAt(50_000)}`,
  Q9: `/api/users?pagination=simple&${q2}`,
} as const;

export const benchDescriptions: Record<keyof typeof benchQueries, string> = {
  Q1: 'first page, newest first, with total',
  Q2: 'status=active AND score>=80 AND name contains "ann"',
  Q3: 'users having the role editor (EXISTS)',
  Q4: 'include=roles and count=posts',
  Q5: 'or group: status=banned OR score>=95',
  Q6: 'JSON filter settings.theme=dark',
  Q7: 'page 200 of the unfiltered list',
  Q8: 'a cursor page in the middle',
  Q9: 'pagination=simple of Q2',
};

/**
 * Q8 at a different position on every request (1,000 positions, cycled): both servers run the same
 * statement with new values each time, so nothing can be answered from a cache of earlier requests.
 */
export const cursorPrefix = '/api/users?pagination=cursor&cursor=';
export const movingCursor = (n: number): string =>
  `${cursorPrefix}${cursorAt(1_000 + ((n * 7_919) % 1_000) * 97)}`;
