import { FilterValueError } from '../../src/resource/filter-value-error.js';
import { defineEndpoint, Filter } from '../../src/resource/policy.js';

export const endpoints = [
  defineEndpoint({
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
      Filter.custom('email_domain', ({ eb, column, value }) => {
        if (typeof value !== 'string' || !/^[a-z0-9.-]+$/i.test(value))
          throw new FilterValueError('The email_domain filter takes one domain name, such as example.com.');
        return eb(eb.fn('lower', [column('email')]), 'like', `%@${value.toLowerCase()}`);
      }),
    ],
    allowedIncludes: ['roles.permissions', 'department', 'profile', 'posts.comments'],
    allowedCounts: ['posts', 'roles', 'comments'],
    allowedSorts: ['name', 'email', 'score', 'balance', 'birthday', 'created_at'],
    allowedSearch: ['name', 'email', 'department.name'],
    allowAll: 1000,
  }),
  defineEndpoint({
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
    allowedSorts: ['title', 'score', 'published_at', 'created_at'],
    allowedSearch: ['title', 'body', 'author.name'],
    defaultSort: '-created_at',
  }),
  defineEndpoint({
    resource: 'comments',
    allowedFilters: ['*', 'post.title', 'author.name'],
    allowedIncludes: ['post', 'author'],
    allowedSorts: ['created_at'],
    allowAll: 'unlimited',
  }),
  defineEndpoint({
    resource: 'departments',
    allowedFilters: ['*', 'users.name'],
    allowedCounts: ['users'],
    allowAll: 100,
  }),
  defineEndpoint({
    resource: 'roles',
    allowedFilters: ['*', 'permissions.name'],
    allowedIncludes: ['permissions'],
    allowedCounts: ['users'],
  }),
];
