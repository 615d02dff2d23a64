import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import demoConfig from '../examples/demo/config.js';
import { resources } from '../examples/demo/resources.js';
import { createSchema } from '../examples/demo/schema.js';
import { createService } from '../src/core/service.js';
import { ConfigurationError } from '../src/errors/configuration-error.js';
import type { ServiceConfig } from '../src/resource/policy.js';
import { belongsTo, belongsToMany, hasMany } from '../src/resource/relations.js';
import type { ColumnSpec, ResourceDefinition } from '../src/resource/types.js';
import type { Connection } from '../src/sql/connect.js';
import { dialects, dropDatabase, freshDatabase } from './support/databases.js';

type Resource = (typeof resources)[number];

/** The demo's resources with `name`'s definition changed. */
function changed(name: string, change: (resource: Resource) => ResourceDefinition): ResourceDefinition[] {
  return resources.map((resource) => (resource.name === name ? change(resource) : resource));
}

/** The demo's resources with columns of `name` added or replaced. */
function withColumns(name: string, columns: Record<string, ColumnSpec>): ResourceDefinition[] {
  return changed(name, (resource) => ({ ...resource, columns: { ...resource.columns, ...columns } }));
}

/** The demo's resources without column `column` of `name`. */
function without(resource: Resource, column: string): Record<string, ColumnSpec> {
  return Object.fromEntries(Object.entries(resource.columns).filter(([key]) => key !== column));
}

for (const dialect of dialects) {
  describe(`start-up verification against the database, on ${dialect}`, () => {
    const database = `verify_${dialect}`;
    let conn: Connection;
    beforeAll(async () => {
      conn = await freshDatabase(dialect, database);
      await createSchema(conn);
    });
    afterAll(async () => {
      await conn?.db.destroy();
      await dropDatabase(dialect, database);
    });

    /** The message of the start-up's ConfigurationError (fails when the service starts). */
    const refusal = async (definitions: ResourceDefinition[]): Promise<string> => {
      const started = createService({ config: { resources: definitions, endpoints: [] }, connection: conn });
      const error = await started.then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(error, 'the service started').toBeInstanceOf(ConfigurationError);
      return (error as ConfigurationError).message;
    };
    const starts = async (definitions: ResourceDefinition[]) => {
      await createService({ config: { resources: definitions, endpoints: [] }, connection: conn });
    };

    it('starts the demo configuration, and serves it', async () => {
      const service = await createService({ config: demoConfig as ServiceConfig, connection: conn });
      const response = await service.handle({
        method: 'GET',
        url: '/api/users',
        headers: { host: 'localhost' },
      });
      expect(response?.status).toBe(200);
    });

    it('names a table that does not exist, the closest one and the tables that do', async () => {
      const message = await refusal(changed('users', (users) => ({ ...users, table: 'userz' })));
      expect(message).toContain(
        'Resource "users" names the table "userz", which does not exist in the database',
      );
      expect(message).toContain('did you mean "users"?');
      expect(message).toMatch(
        /it has comments, departments, live_changes, permission_role, permissions, posts, profiles, role_user, roles, users\.$/,
      );
      // The database's own refusal, read once with `where 1 = 0`.
      expect(message).toMatch(/reading it fails: .*userz/);
    });

    it('names a declared column the table lacks, with the close match and what the table has', async () => {
      const message = await refusal(withColumns('users', { emial: 'string' }));
      expect(message).toContain(
        'Resource "users": column "users.emial" is declared, but the database\'s table has no such column (did you mean "email"? it has id, name, email,',
      );
      // Case differs only: still a mismatch (quoted identifiers), and the match is named.
      expect(await refusal(withColumns('roles', { Label: 'string' }))).toContain(
        'column "roles.Label" is declared, but the database\'s table has no such column (did you mean "label"?',
      );
    });

    it('names the relation whose key column is declared but not in the table', async () => {
      const parentSide = await refusal(
        changed('users', (users) => ({
          ...users,
          columns: { ...users.columns, dept_id: 'integer' },
          relations: { ...users.relations, department: belongsTo('departments', 'dept_id') },
        })),
      );
      expect(parentSide).toContain(
        'Resource "users": column "users.dept_id" is declared, but the database\'s table has no such column (it has id, name,',
      );
      expect(parentSide).toContain('Relation "users.department" joins on it.');

      const childSide = await refusal(
        changed('comments', (comments) => ({
          ...comments,
          columns: { ...without(comments, 'post_id'), post_ident: 'integer' },
          relations: { ...comments.relations, post: belongsTo('posts', 'post_ident') },
        })).map((resource) =>
          resource.name === 'posts'
            ? {
                ...resource,
                relations: { ...resource.relations, comments: hasMany('comments', 'post_ident') },
              }
            : resource,
        ),
      );
      expect(childSide).toContain('column "comments.post_ident" is declared');
      expect(childSide).toContain('did you mean "post_id"?');
      expect(childSide).toContain('Relations "posts.comments", "comments.post" join on it.');
    });

    it('names a pivot table that does not exist, and a pivot column the pivot table lacks', async () => {
      const roles = (pivot: Parameters<typeof belongsToMany>[1]) =>
        changed('users', (users) => ({
          ...users,
          relations: { ...users.relations, roles: belongsToMany('roles', pivot) },
        }));
      const table = await refusal(
        roles({ pivot: 'user_roles', foreignPivotKey: 'user_id', relatedPivotKey: 'role_id' }),
      );
      expect(table).toContain(
        'Resource "users": relation "roles" names the pivot table "user_roles", which does not exist in the database; did you mean "role_user" or "roles"?',
      );
      expect(table).toContain('it has comments, departments,');

      const column = await refusal(
        roles({ pivot: 'role_user', foreignPivotKey: 'users_id', relatedPivotKey: 'role_id' }),
      );
      expect(column).toBe(
        'Resource "users": relation "roles" joins through "role_user.users_id" (foreignPivotKey), but the pivot table has no such column (did you mean "user_id"? it has user_id, role_id).',
      );
    });

    it('lists every mismatch at once', async () => {
      const message = await refusal(
        changed('users', (users) => ({
          ...users,
          columns: { ...users.columns, nickname: 'string', emial: 'string' },
          relations: {
            ...users.relations,
            roles: belongsToMany('roles', {
              pivot: 'role_user',
              foreignPivotKey: 'user_id',
              relatedPivotKey: 'rol_id',
            }),
          },
        })),
      );
      expect(message.split('\n')[0]).toBe('3 declarations do not match the database:');
      expect(message).toContain('- Resource "users": column "users.nickname" is declared');
      expect(message).toContain('- Resource "users": column "users.emial" is declared');
      expect(message).toContain(
        '- Resource "users": relation "roles" joins through "role_user.rol_id" (relatedPivotKey)',
      );
    });

    it('skips it all with introspect: false', async () => {
      await createService({
        config: { resources: withColumns('users', { nickname: 'string' }), endpoints: [], introspect: false },
        connection: conn,
      });
      await createService({
        config: {
          resources: changed('users', (users) => ({ ...users, table: 'userz' })),
          endpoints: [],
          introspect: false,
        },
        connection: conn,
      });
    });

    if (dialect === 'sqlite') {
      it('does not check kinds: SQLite columns take any value, whatever their declared type', async () => {
        await starts(withColumns('users', { name: 'integer', score: 'json', is_admin: 'datetime' }));
      });

      it('trusts a table its catalog does not list but a query reads (main.users)', async () => {
        await starts(changed('users', (users) => ({ ...users, table: 'main.users' })));
      });
    } else {
      const [integerType, textType] = dialect === 'postgres' ? ['int4', 'varchar'] : ['int', 'varchar'];
      // The kinds each column type serves, in the order of the kinds table (src/kinds/index.ts).
      const numbersFit = `string, integer, decimal, ${dialect === 'mysql' ? 'boolean, ' : ''}bigint`;
      const textFits = `string, date, datetime, json, uuid, enum, ${dialect === 'mysql' ? 'set, ' : ''}time, network`;

      it('names a declared kind the column type cannot hold', async () => {
        expect(await refusal(withColumns('users', { score: 'json' }))).toBe(
          `Resource "users": column "users.score" is declared json, but the database's column is ${integerType}, which cannot hold it (it fits ${numbersFit}).`,
        );
        expect(await refusal(withColumns('users', { name: 'integer' }))).toBe(
          `Resource "users": column "users.name" is declared integer, but the database's column is ${textType}, which cannot hold it (it fits ${textFits}).`,
        );
        // A datetime in an integer column is a unix timestamp only when its storage says so.
        expect(await refusal(withColumns('users', { score: 'datetime' }))).toContain(
          `column "users.score" is declared datetime, but the database's column is ${integerType}, which cannot hold it (it fits ${numbersFit} or storage: 'unix-seconds' / 'unix-milliseconds').`,
        );
        await starts(withColumns('users', { score: { type: 'datetime', storage: 'unix-seconds' } }));
      });

      it('accepts what works: json in text, a date in a timestamp, a number as a string', async () => {
        await starts([
          ...withColumns('users', {
            password_hash: 'json',
            created_at: 'date',
            score: 'string',
            balance: 'integer',
          }),
        ]);
      });

      if (dialect === 'postgres') {
        it('refuses a boolean declared on an integer column (PostgreSQL compares booleans only with booleans)', async () => {
          expect(await refusal(withColumns('users', { score: 'boolean' }))).toContain(
            `column "users.score" is declared boolean, but the database's column is int4, which cannot hold it (it fits ${numbersFit} or storage: 'integer').`,
          );
        });

        it('trusts a table its catalog does not list but a query reads (a materialized view)', async () => {
          await sql`create materialized view user_names as select id, name from users`.execute(conn.db);
          await starts([
            ...resources,
            { name: 'user_names', table: 'user_names', columns: { id: 'integer', name: 'string' } },
          ]);
        });
      } else {
        it('accepts a boolean declared on an integer column (MariaDB BOOLEAN is tinyint(1))', async () => {
          await starts(withColumns('users', { score: 'boolean' }));
        });
      }
    }
  });
}
