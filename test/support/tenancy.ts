import type { JWTPayload } from 'jose';
import { type Expression, type SqlBool, sql } from 'kysely';
import { resources } from '../../examples/demo/resources.js';
import type { ResourceDefinition, RowScope } from '../../src/resource/types.js';
import type { Connection } from '../../src/sql/connect.js';
import * as fixture from './fixture.js';
import {
  type CommentRow,
  insertComments,
  insertPosts,
  insertUserRoles,
  insertUsers,
  type UserRow,
} from './fixture.js';

/**
 * A multi-tenant copy of the demo: the tenant is the department. Users belong to one by
 * `department_id`; posts, comments and profiles through their author / user; roles and permissions
 * are global. The expectations of test/security.test.ts are computed from `world` below in plain
 * JavaScript, never by SQL.
 */

/** The claims of a verified bearer token, or undefined without one. */
export type Claims = JWTPayload | undefined;

/** The tenant a context belongs to: a number claim, else none (sees no tenant rows). */
export function tenantOf(ctx: Claims): number | undefined {
  const tenant = ctx?.tenant;
  return typeof tenant === 'number' && Number.isInteger(tenant) ? tenant : undefined;
}

/** A condition no row meets: the scope of a context without a tenant. */
const nothing = (): Expression<SqlBool> => sql<SqlBool>`1 = 0`;

/** `<column> = :tenant` on the resource's own table. */
function ownTenant(name: string): RowScope<Claims> {
  return ({ eb, column, ctx }) => {
    const tenant = tenantOf(ctx);
    return tenant === undefined ? nothing() : eb(column(name), '=', tenant);
  };
}

/** `<key> in (select id from users where department_id = :tenant)`. */
function userInTenant(key: string): RowScope<Claims> {
  return ({ eb, column, ctx }) => {
    const tenant = tenantOf(ctx);
    if (tenant === undefined) return nothing();
    return eb(
      column(key),
      'in',
      eb
        .selectFrom('users as tenant_users')
        .select('tenant_users.id')
        .where('tenant_users.department_id', '=', tenant),
    );
  };
}

/** `exists (select 1 from users where id = <key> and department_id = :tenant)`: the other sub-query form. */
function userExistsInTenant(key: string): RowScope<Claims> {
  return ({ eb, column, ctx }) => {
    const tenant = tenantOf(ctx);
    if (tenant === undefined) return nothing();
    return eb.exists(
      eb
        .selectFrom('users as tenant_authors')
        .select((inner) => inner.lit(1).as('one'))
        .where((inner) =>
          inner.and([
            inner(inner.ref('tenant_authors.id'), '=', column(key)),
            inner('tenant_authors.department_id', '=', tenant),
          ]),
        ),
    );
  };
}

const scopes: Record<string, RowScope<Claims> | undefined> = {
  departments: ownTenant('id'),
  users: ownTenant('department_id'),
  profiles: userInTenant('user_id'),
  posts: userInTenant('user_id'),
  comments: userExistsInTenant('user_id'),
  // roles and permissions: global.
};

/** The demo's resources, each with its tenant scope. */
export const tenantResources: ResourceDefinition<Claims>[] = resources.map((resource) => {
  const scope = scopes[resource.name];
  return scope ? { ...resource, scope } : resource;
});

// ---------------------------------------------------------------------------------------------------
// Data: the fixture has no cross-tenant relations on tenant 2's side, so these rows add them.

export interface PostRow {
  id: number;
  user_id: number;
  title: string;
  status: string;
  score: number;
  meta: unknown;
  published_at: string | null;
  created_at: string;
  deleted_at: string | null;
}

export type { CommentRow };

export interface ProfileRow {
  id: number;
  user_id: number;
  bio: string | null;
  website: string | null;
}

function user(
  id: number,
  name: string,
  department_id: number,
  status: UserRow['status'],
  deleted_at: string | null = null,
): UserRow {
  return {
    id,
    name,
    email: `${name.split(' ')[0]?.toLowerCase()}@tenant${department_id}.test`,
    status,
    score: 50 + id - 100,
    balance: 10,
    is_admin: false,
    birthday: null,
    settings: null,
    department_id,
    created_at: `2024-06-${String(id - 90).padStart(2, '0')}T12:00:00.000Z`,
    deleted_at,
  };
}

/** Tenant 2 gets active, banned and soft-deleted users; tenant 1 a user the PATCH tests write. */
export const extraUsers: UserRow[] = [
  user(101, 'Greta Sales', 2, 'active'),
  user(102, 'Hugo Sales', 2, 'active'),
  user(103, 'Ingrid Eng', 1, 'active'),
  user(104, 'Lena Sales', 2, 'active'),
  user(105, 'Mats Sales', 2, 'banned', '2024-07-01T00:00:00.000Z'),
];

function post(id: number, user_id: number, title: string, status = 'published'): PostRow {
  const day = String(id - 90).padStart(2, '0');
  return {
    id,
    user_id,
    title,
    status,
    score: id - 100,
    meta: null,
    published_at: status === 'published' ? `2024-07-${day}T09:00:00.000Z` : null,
    created_at: `2024-07-${day}T08:00:00.000Z`,
    deleted_at: null,
  };
}

/** Posts of tenant 2's users, and one more of tenant 1's that tenant 2's users comment on. */
export const extraPosts: PostRow[] = [
  post(101, 2, 'Sales kickoff'),
  post(102, 101, 'Quarterly numbers'),
  post(103, 6, 'Pipeline draft', 'draft'),
  post(104, 103, 'Engineering roadmap'),
];

function comment(id: number, post_id: number, user_id: number, body: string): CommentRow {
  return { id, post_id, user_id, body, approved: true, created_at: `2024-08-${id - 90}T00:00:00.000Z` };
}

/** Each tenant-2 post gets a comment from each tenant; tenant 2 comments on tenant 1's roadmap. */
export const extraComments: CommentRow[] = [
  comment(101, 101, 1, 'Cross-tenant remark'),
  comment(102, 101, 6, 'Agreed with kickoff'),
  comment(103, 102, 3, 'Numbers look off'),
  comment(104, 102, 101, 'Updated numbers'),
  comment(105, 104, 102, 'Sales view'),
  comment(106, 104, 1, 'Ship it'),
];

export const extraProfiles: ProfileRow[] = [{ id: 101, user_id: 101, bio: 'Sales lead', website: null }];

/** user id → role ids, for the new users. */
export const extraUserRoles: Record<number, number[]> = { 101: [4], 102: [2], 103: [2], 104: [], 105: [4] };

/** Inserts the rows above into a database that holds the fixture. */
export async function insertTenancyRows(conn: Connection): Promise<void> {
  const { db } = conn;
  await insertUsers(conn, extraUsers);
  await db.insertInto('profiles').values(extraProfiles).execute();
  await insertUserRoles(conn, extraUserRoles);
  await insertPosts(conn, extraPosts);
  await insertComments(conn, extraComments);
}

// ---------------------------------------------------------------------------------------------------
// The model: what each tenant may see, in plain JavaScript.

/** Every row of the database after `insertTenancyRows`. */
export const world = {
  departments: fixture.departments,
  users: [...fixture.users, ...extraUsers],
  posts: [...(fixture.posts as PostRow[]), ...extraPosts],
  comments: [...fixture.comments, ...extraComments] as CommentRow[],
  profiles: [...fixture.profiles, ...extraProfiles] as ProfileRow[],
  roles: fixture.roles,
  userRoles: { ...fixture.userRoles, ...extraUserRoles } as Record<number, number[]>,
};

export type Department = (typeof fixture.departments)[number];

/** The rows one reader may see of each resource (soft-deleted ones left out). */
export interface View {
  departments: Department[];
  users: UserRow[];
  posts: PostRow[];
  comments: CommentRow[];
  profiles: ProfileRow[];
}

const tenantOfUser = (id: number): number | null =>
  world.users.find((row) => row.id === id)?.department_id ?? null;

/**
 * What a tenant sees, exactly as the scopes say: its department, its users, and the posts, comments
 * and profiles of its users (an author's soft deletion does not hide their posts: the scopes read the
 * users table directly). `trashed`: soft-deleted users too.
 */
export function tenantView(tenant: number | undefined, trashed = false): View {
  const inTenant = (userId: number) => tenant !== undefined && tenantOfUser(userId) === tenant;
  return {
    departments: world.departments.filter((row) => row.id === tenant),
    users: world.users.filter(
      (row) => tenant !== undefined && row.department_id === tenant && (trashed || row.deleted_at === null),
    ),
    posts: world.posts.filter((row) => inTenant(row.user_id) && row.deleted_at === null),
    comments: world.comments.filter((row) => inTenant(row.user_id)),
    profiles: world.profiles.filter((row) => inTenant(row.user_id)),
  };
}

/** Every row but soft-deleted ones: what a read would see if the scopes were forgotten. */
export const unscopedView: View = {
  departments: world.departments,
  users: world.users.filter((row) => row.deleted_at === null),
  posts: world.posts.filter((row) => row.deleted_at === null),
  comments: world.comments,
  profiles: world.profiles,
};
