import { defineResource } from '../../src/resource/policy.js';
import { belongsTo, belongsToMany, hasMany, hasOne } from '../../src/resource/relations.js';

export const departments = defineResource({
  name: 'departments',
  table: 'departments',
  columns: { id: 'integer', name: 'string', code: 'string', budget: 'decimal', created_at: 'datetime' },
  relations: { users: hasMany('users', 'department_id') },
});

export const users = defineResource({
  name: 'users',
  table: 'users',
  columns: {
    id: 'integer',
    name: 'string',
    email: 'string',
    status: 'string',
    score: 'integer',
    balance: { type: 'decimal', precision: 12, scale: 2 },
    is_admin: 'boolean',
    birthday: 'date',
    settings: 'json',
    department_id: 'integer',
    password_hash: { type: 'string', hidden: true },
    created_at: 'datetime',
    updated_at: 'datetime',
    deleted_at: 'datetime',
  },
  relations: {
    department: belongsTo('departments', 'department_id'),
    profile: hasOne('profiles', 'user_id'),
    posts: hasMany('posts', 'user_id'),
    comments: hasMany('comments', 'user_id'),
    roles: belongsToMany('roles', {
      pivot: 'role_user',
      foreignPivotKey: 'user_id',
      relatedPivotKey: 'role_id',
    }),
  },
  scopes: {
    active: ({ eb, column, value }) => eb(column('status'), value ? '=' : '<>', 'active'),
    // Inline TRUE/FALSE literals, not bound parameters: PostgreSQL compares them with its boolean, and
    // MariaDB and SQLite read them as 1/0, matching their stored 0/1 (a bound JS boolean fails on SQLite).
    admins: ({ eb, column, value }) => eb(column('is_admin'), '=', eb.lit(value)),
  },
  softDeleteColumn: 'deleted_at',
});

export const profiles = defineResource({
  name: 'profiles',
  table: 'profiles',
  columns: { id: 'integer', user_id: 'integer', bio: 'string', website: 'string' },
  relations: { user: belongsTo('users', 'user_id') },
});

export const roles = defineResource({
  name: 'roles',
  table: 'roles',
  columns: { id: 'integer', name: 'string', label: 'string' },
  relations: {
    permissions: belongsToMany('permissions', {
      pivot: 'permission_role',
      foreignPivotKey: 'role_id',
      relatedPivotKey: 'permission_id',
    }),
    users: belongsToMany('users', {
      pivot: 'role_user',
      foreignPivotKey: 'role_id',
      relatedPivotKey: 'user_id',
    }),
  },
});

export const permissions = defineResource({
  name: 'permissions',
  table: 'permissions',
  columns: { id: 'integer', name: 'string' },
});

export const posts = defineResource({
  name: 'posts',
  table: 'posts',
  columns: {
    id: 'integer',
    user_id: 'integer',
    title: 'string',
    body: 'string',
    status: 'string',
    score: 'integer',
    meta: 'json',
    published_at: 'datetime',
    created_at: 'datetime',
    deleted_at: 'datetime',
  },
  relations: { author: belongsTo('users', 'user_id'), comments: hasMany('comments', 'post_id') },
  scopes: {
    published: ({ eb, column, value }) =>
      value
        ? eb.and([eb(column('status'), '=', 'published'), eb(column('published_at'), 'is not', null)])
        : eb.or([eb(column('status'), '<>', 'published'), eb(column('published_at'), 'is', null)]),
  },
  softDeleteColumn: 'deleted_at',
});

export const comments = defineResource({
  name: 'comments',
  table: 'comments',
  columns: {
    id: 'integer',
    post_id: 'integer',
    user_id: 'integer',
    body: 'string',
    approved: 'boolean',
    created_at: 'datetime',
  },
  relations: { post: belongsTo('posts', 'post_id'), author: belongsTo('users', 'user_id') },
});

export const resources = [departments, users, profiles, roles, permissions, posts, comments];
