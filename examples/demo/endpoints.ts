import { FilterValueError } from '../../src/errors/filter-value-error.js';
import { defineEndpoint, Filter } from '../../src/resource/policy.js';
import { type DemoContext, editorsOnly } from './auth.js';

export const endpoints = [
  defineEndpoint<DemoContext>({
    resource: 'users',
    allowedFilters: [
      '*',
      'department.name',
      'roles.name',
      'roles.permissions.name',
      'posts.*',
      'profile.website',
      'settings.*',
      'active',
      'admins',
      'trashed',
      // `filter[email_domain]=example.com`. The character check also keeps LIKE wildcards out of the
      // pattern; lower() on both sides makes the match case-insensitive on every engine.
      Filter.custom(
        'email_domain',
        ({ eb, column, value }) => {
          if (typeof value !== 'string' || !/^[a-z0-9.-]+$/i.test(value))
            throw new FilterValueError('The email_domain filter takes one domain name, such as example.com.');
          return eb(eb.fn('lower', [column('email')]), 'like', `%@${value.toLowerCase()}`);
        },
        { schema: { type: 'string', pattern: '^[A-Za-z0-9.-]+$' } },
      ),
    ],
    allowedIncludes: ['roles.permissions', 'department', 'profile', 'posts.comments'],
    // `include=posts&include_sort[posts]=-created_at&include_limit[posts]=3`: each user's 3 newest posts.
    includeConstraints: {
      posts: { allowedFilters: ['status', 'created_at', 'published'], allowedSorts: ['created_at', 'score'] },
      'posts.comments': { allowedFilters: ['approved'], allowedSorts: ['created_at'] },
    },
    allowedCounts: ['posts', 'roles', 'comments'],
    allowedSorts: [
      'name',
      'email',
      'score',
      'balance',
      'birthday',
      'created_at',
      'department.name',
      'posts_count',
    ],
    allowedSearch: ['name', 'email', 'department.name'],
    allowAll: 1000,
    // `GET /api/users/aggregate?metrics=count,sum:balance&group_by=created_at:month&from=…&to=…`;
    // `metrics=min:created_at,max:created_at`: the data's extent, for a dashboard's range.
    aggregates: {
      allowedAggregates: [
        'count',
        'sum:balance',
        'avg:balance',
        'avg:score',
        'min:created_at',
        'max:created_at',
      ],
      allowedGroupBy: ['status', 'department.name', 'created_at:day', 'created_at:week', 'created_at:month'],
    },
    // Anyone may list and read; only an editor's token may write.
    actions: ['list', 'read', 'create', 'update', 'delete', 'restore'],
    access: { create: editorsOnly, update: editorsOnly, delete: editorsOnly, restore: editorsOnly },
    schema: {
      title: 'Users',
      recordTitle: 'name',
      table: {
        columns: [
          { key: 'id', label: 'ID' },
          { key: 'name' },
          { key: 'email' },
          { key: 'status', type: 'badge', colorMap: { active: 'green', inactive: 'gray', banned: 'red' } },
          { key: 'score' },
          { key: 'is_admin', label: 'Admin' },
          { key: 'birthday' },
          { key: 'created_at', label: 'Joined' },
        ],
        tabs: [
          { key: 'all', label: 'All' },
          { key: 'active', label: 'Active', filter: { status: 'active' } },
          { key: 'banned', label: 'Banned', filter: { status: 'banned' } },
          { key: 'top', label: 'Top scores', filter: { score: { gte: 90 } } },
        ],
      },
      form: {
        inputs: [
          { name: 'name', type: 'text', required: true, cols: 12, md: 6 },
          { name: 'email', type: 'email', required: true, cols: 12, md: 6 },
          {
            name: 'status',
            type: 'select',
            required: true,
            cols: 12,
            md: 4,
            options: [
              { value: 'active', label: 'Active' },
              { value: 'inactive', label: 'Inactive' },
              { value: 'banned', label: 'Banned' },
            ],
          },
          // Banned users keep no score: the input disappears, and a hidden input is neither required nor saved.
          {
            name: 'score',
            type: 'number',
            required: true,
            cols: 6,
            md: 4,
            visibleWhen: { field: 'status', operator: '!==', is: 'banned' },
          },
          { name: 'is_admin', label: 'Administrator', type: 'switch', cols: 6, md: 4 },
          { name: 'birthday', type: 'date', cols: 12, md: 6 },
          {
            name: 'balance',
            type: 'number',
            cols: 12,
            md: 6,
            visibleWhen: { field: 'status', operator: 'in', is: ['active', 'inactive'] },
          },
          {
            name: 'password',
            label: 'New password',
            type: 'password',
            column: 'password_hash',
            cols: 12,
            md: 6,
          },
        ],
      },
      detail: {
        fields: [
          { key: 'id', label: 'ID' },
          { key: 'name' },
          { key: 'email' },
          { key: 'status', type: 'badge' },
          { key: 'score' },
          { key: 'balance' },
          { key: 'is_admin', label: 'Admin' },
          { key: 'birthday' },
          { key: 'settings' },
          { key: 'created_at', label: 'Joined' },
          { key: 'updated_at', label: 'Updated' },
        ],
      },
    },
  }),
  defineEndpoint<DemoContext>({
    resource: 'posts',
    allowedFilters: [
      'title',
      'status',
      'score',
      'published_at',
      'created_at',
      'meta.*',
      'author.name',
      'author.status',
      'comments.body',
      'published',
      'trashed',
    ],
    defaultFilters: { status: 'published' },
    allowedIncludes: ['author', 'comments.author'],
    allowedCounts: ['comments'],
    allowedSorts: ['title', 'score', 'published_at', 'created_at', 'author.name', 'comments_count'],
    allowedSearch: ['title', 'body', 'author.name'],
    defaultSort: '-created_at',
    // Anyone may list and read; only an editor's token may write.
    actions: ['list', 'read', 'create', 'update', 'delete', 'restore'],
    access: { create: editorsOnly, update: editorsOnly, delete: editorsOnly, restore: editorsOnly },
    schema: {
      title: 'Posts',
      recordTitle: 'title',
      table: {
        columns: [
          { key: 'id', label: 'ID' },
          { key: 'title' },
          {
            key: 'status',
            type: 'badge',
            colorMap: { draft: 'gray', published: 'green', archived: 'orange' },
          },
          { key: 'score' },
          { key: 'published_at', label: 'Published' },
        ],
        tabs: [
          { key: 'published', label: 'Published' },
          { key: 'drafts', label: 'Drafts', filter: { status: 'draft' } },
        ],
      },
      form: {
        inputs: [
          { name: 'title', type: 'text', required: true, cols: 12 },
          { name: 'body', type: 'textarea', required: true, cols: 12 },
          {
            name: 'status',
            type: 'select',
            required: true,
            cols: 12,
            md: 6,
            options: [
              { value: 'draft', label: 'Draft' },
              { value: 'published', label: 'Published' },
              { value: 'archived', label: 'Archived' },
            ],
          },
          { name: 'score', type: 'number', cols: 12, md: 6 },
          // A post needs its author; the demo's tokens name a role, not a user, so the form asks.
          { name: 'user_id', label: 'Author (user id)', type: 'number', required: true, cols: 12, md: 6 },
        ],
      },
    },
  }),
  defineEndpoint<DemoContext>({
    resource: 'comments',
    allowedFilters: ['*', 'post.title', 'author.name'],
    allowedIncludes: ['post', 'author'],
    allowedSorts: ['created_at'],
    allowAll: 'unlimited',
  }),
  defineEndpoint<DemoContext>({
    resource: 'departments',
    allowedFilters: ['*', 'users.name'],
    allowedCounts: ['users'],
    allowAll: 100,
  }),
  defineEndpoint<DemoContext>({
    resource: 'roles',
    allowedFilters: ['*', 'permissions.name'],
    allowedIncludes: ['permissions'],
    allowedCounts: ['users'],
  }),
];
