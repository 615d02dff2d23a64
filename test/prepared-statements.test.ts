import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { resources } from '../examples/demo/resources.js';
import { connectOptionsFrom } from '../src/cli/env.js';
import { buildService } from '../src/server/standalone.js';
import type { Connection } from '../src/sql/connect.js';
import type { ConnectOptions } from '../src/sql/dialect.js';
import { dropDatabase } from './support/databases.js';
import { testEndpoints } from './support/service.js';
import { fixtureDatabase } from './support/templates.js';

describe('DATABASE_PREPARED_STATEMENTS', () => {
  it('turns named statements off or on, and refuses anything else, naming it', () => {
    expect(connectOptionsFrom({ DATABASE_PREPARED_STATEMENTS: 'false' })).toEqual({
      preparedStatements: false,
    });
    expect(connectOptionsFrom({ DATABASE_PREPARED_STATEMENTS: 'true' })).toEqual({
      preparedStatements: true,
    });
    expect(connectOptionsFrom({ DATABASE_PREPARED_STATEMENTS: '' })).toEqual({});
    for (const bad of ['0', 'no', 'TRUE', ' true'])
      expect(() => connectOptionsFrom({ DATABASE_PREPARED_STATEMENTS: bad })).toThrow(
        /DATABASE_PREPARED_STATEMENTS must be true or false/,
      );
  });
});

/**
 * PostgreSQL's reads as named prepared statements. One pooled connection, so that the session the
 * test looks at (`pg_prepared_statements` is per session) is the one that served the requests.
 */
describe('named prepared statements (postgres)', () => {
  const opened: Array<{ name: string; connection: Connection }> = [];
  async function serviceOn(name: string, options?: ConnectOptions) {
    const connection = await fixtureDatabase('postgres', name, { poolSize: 1, ...options });
    opened.push({ name, connection });
    const app = await buildService({ config: { resources, endpoints: testEndpoints }, connection });
    return { connection, app };
  }
  afterAll(async () => {
    for (const { name, connection } of opened) {
      await connection.close();
      await dropDatabase('postgres', name);
    }
  });

  /** The statements the pool's one session has prepared that read `users`, with how often each ran. */
  const preparedOnUsers = (connection: Connection) =>
    connection.run({
      sql: `select name, statement, custom_plans + generic_plans as runs from pg_prepared_statements
            where statement like '%from "users"%' and statement not like '%pg_prepared_statements%' order by name`,
      parameters: [],
    });

  it('parses a read once per connection, then only binds it: three requests, one statement run three times', async () => {
    const { connection, app } = await serviceOn('prepared_named');
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await app.inject({ url: '/api/users?per_page=5&sort=name' }));
    await app.close();
    for (const answer of answers) expect(answer.statusCode, answer.body).toBe(200);
    expect(answers[1]?.json()).toEqual(answers[0]?.json());
    const prepared = await preparedOnUsers(connection);
    // The page and its count: each named for its text, each prepared once and run by every request.
    expect(prepared.length).toBe(2);
    for (const statement of prepared) {
      expect(String(statement.name)).toMatch(/^rqs_[\w-]{27}$/);
      expect(Number(statement.runs)).toBe(3);
    }
  });

  it('names read-one and lists without filter values, and sends a filtered list unnamed', async () => {
    const { connection, app } = await serviceOn('prepared_which');
    const urls = [
      '/api/users/1',
      '/api/users?pagination=cursor&sort=-created_at&per_page=3',
      '/api/users?filter[status]=active&per_page=5',
      '/api/users?filter[score][gte]=50&pagination=simple',
    ];
    for (const url of urls) {
      const answer = await app.inject({ url });
      expect(answer.statusCode, `${url}: ${answer.body}`).toBe(200);
    }
    await app.close();
    const prepared = (await preparedOnUsers(connection)).map((row) => String(row.statement));
    const filtered = /"status" = \$|"score" >= \$/;
    // Read-one by its key, and the cursor page: the best plan is the same whatever the values.
    expect(prepared.some((text) => /"id" = \$1/.test(text) && !/limit/i.test(text))).toBe(true);
    expect(prepared.some((text) => /limit \$1$/.test(text) && !filtered.test(text))).toBe(true);
    // A filter's value can change which plan is best (a rare status, a score most users pass):
    // PostgreSQL plans those statements for their values, each time.
    expect(prepared.filter((text) => filtered.test(text))).toEqual([]);
  });

  it('sends them unnamed with preparedStatements: false', async () => {
    const { connection, app } = await serviceOn('prepared_off', { preparedStatements: false });
    const answer = await app.inject({ url: '/api/users?per_page=5&sort=name' });
    await app.close();
    expect(answer.statusCode, answer.body).toBe(200);
    expect(await preparedOnUsers(connection)).toEqual([]);
  });

  it('answers a read whose statement was prepared before its table changed a column type', async () => {
    const { connection, app } = await serviceOn('prepared_stale');
    const url = '/api/users?per_page=5&sort=name&fields[users]=id,name';
    const before = await app.inject({ url });
    expect(before.statusCode, before.body).toBe(200);
    // The prepared page now returns a column of another type: PostgreSQL refuses to run it (0A000).
    await sql`alter table users alter column name type text`.execute(connection.db);
    const after = await app.inject({ url });
    await app.close();
    expect(after.statusCode, after.body).toBe(200);
    expect(after.json().data).toEqual(before.json().data);
  });
});
