import { defineEndpoint, defineResource } from '../../src/resource/policy.js';
import { belongsTo, hasMany } from '../../src/resource/relations.js';
import { defineConfig } from '../../src/server/config.js';

/**
 * A multi-tenant configuration over the demo's tables (examples/demo/schema.ts): a tenant is a
 * department. A signed-in user sees its department, the users of its department and their posts —
 * nothing else, by any path (list, totals, counts, includes, relation filters, search, PATCH).
 */

/** Who is signed in, as the application's own authentication knows them. */
export interface AppUser {
  id: string;
  name: string;
  /** The tenant: a department id. */
  tenantId: number;
  role: 'editor' | 'viewer';
}

/** The request context of the service: the signed-in user, or `undefined` (anonymous). */
export type AppContext = AppUser | undefined;

/**
 * API keys → users, for brevity (a real application checks a session cookie or a JWT here, e.g. with
 * jose's `jwtVerify`). Sent as `x-api-key: <key>`.
 */
export const apiKeys: Record<string, AppUser> = {
  'eng-editor-key': { id: 'u1', name: 'Erin (Engineering, editor)', tenantId: 1, role: 'editor' },
  'eng-viewer-key': { id: 'u2', name: 'Victor (Engineering, viewer)', tenantId: 1, role: 'viewer' },
  'sales-editor-key': { id: 'u3', name: 'Sam (Sales, editor)', tenantId: 2, role: 'editor' },
};

/** The user an API key names; `undefined` for an unknown key. */
export function userForApiKey(key: string): AppUser | undefined {
  return Object.hasOwn(apiKeys, key) ? apiKeys[key] : undefined;
}

const signedIn = (ctx: AppContext) => ctx !== undefined;
const editors = (ctx: AppContext) => ctx?.role === 'editor';
/** Who may do what: signed-in users list and read, editors also update (PATCH). */
const access = { list: signedIn, read: signedIn, update: editors };

const departments = defineResource<AppContext>({
  name: 'departments',
  table: 'departments',
  columns: { id: 'integer', name: 'string', code: 'string', created_at: 'datetime' },
  relations: { users: hasMany('users', 'department_id') },
  // The rows this request may see; no tenant, no rows (fail closed, whatever the access rules say).
  scope: ({ eb, column, ctx }) => (ctx ? eb(column('id'), '=', ctx.tenantId) : eb.lit(false)),
});

const users = defineResource<AppContext>({
  name: 'users',
  table: 'users',
  columns: {
    id: 'integer',
    name: 'string',
    email: 'string',
    status: 'string',
    score: 'integer',
    department_id: 'integer',
    created_at: 'datetime',
    deleted_at: 'datetime',
  },
  relations: { department: belongsTo('departments', 'department_id'), posts: hasMany('posts', 'user_id') },
  softDeleteColumn: 'deleted_at',
  scope: ({ eb, column, ctx }) => (ctx ? eb(column('department_id'), '=', ctx.tenantId) : eb.lit(false)),
});

const posts = defineResource<AppContext>({
  name: 'posts',
  table: 'posts',
  columns: {
    id: 'integer',
    user_id: 'integer',
    title: 'string',
    status: 'string',
    score: 'integer',
    created_at: 'datetime',
    deleted_at: 'datetime',
  },
  relations: { author: belongsTo('users', 'user_id') },
  softDeleteColumn: 'deleted_at',
  // A post belongs to its author's tenant.
  scope: ({ eb, column, ctx }) =>
    ctx
      ? eb(
          column('user_id'),
          'in',
          eb
            .selectFrom('users as tenant_users')
            .select('tenant_users.id')
            .where('tenant_users.department_id', '=', ctx.tenantId),
        )
      : eb.lit(false),
});

export const tenancyConfig = defineConfig<AppContext>({
  resources: [departments, users, posts],
  endpoints: [
    defineEndpoint<AppContext>({
      resource: 'users',
      allowedFilters: ['name', 'email', 'status', 'score', 'department.name', 'posts.title', 'trashed'],
      allowedIncludes: ['department', 'posts'],
      allowedCounts: ['posts'],
      allowedSorts: ['name', 'score', 'created_at'],
      allowedSearch: ['name', 'email'],
      access,
      schema: {
        title: 'Users',
        table: {
          columns: [{ key: 'id', label: 'ID' }, { key: 'name' }, { key: 'email' }, { key: 'status' }],
        },
        form: {
          inputs: [
            { name: 'name', type: 'text', required: true },
            { name: 'email', type: 'email', required: true },
            {
              name: 'status',
              type: 'select',
              options: [
                { value: 'active', label: 'Active' },
                { value: 'inactive', label: 'Inactive' },
                { value: 'banned', label: 'Banned' },
              ],
            },
            { name: 'score', type: 'number' },
          ],
        },
      },
    }),
    defineEndpoint<AppContext>({
      resource: 'posts',
      allowedFilters: ['title', 'status', 'author.name'],
      allowedIncludes: ['author'],
      allowedSorts: ['title', 'score', 'created_at'],
      allowedSearch: ['title', 'author.name'],
      defaultSort: '-created_at',
      access,
      schema: {
        title: 'Posts',
        table: { columns: [{ key: 'id', label: 'ID' }, { key: 'title' }, { key: 'status' }] },
        form: { inputs: [{ name: 'title', type: 'text', required: true }] },
      },
    }),
    defineEndpoint<AppContext>({
      resource: 'departments',
      allowedFilters: ['name'],
      allowedCounts: ['users'],
      access: { list: signedIn },
    }),
  ],
});
