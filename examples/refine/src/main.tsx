/**
 * refine (headless @refinedev/core) over the demo service: the users' table (search, a filter with an
 * operator, sorting, pages) and an edit form that shows the service's 422 under each field. Plain HTML
 * on purpose: the data provider is the subject. Run the demo (`npm start`), then `npx vite --config
 * examples/refine/vite.config.ts`.
 */
import { type BaseRecord, type CrudFilter, type HttpError, Refine, useForm, useTable } from '@refinedev/core';
import routerProvider from '@refinedev/react-router';
import { type FormEvent, StrictMode, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { HashRouter, Link, Navigate, Route, Routes, useParams } from 'react-router';
import { refineDataProvider } from '../../../src/providers/refine.js';

/**
 * The demo's editor token (examples/demo/auth.ts). Its secret is published in the README, so this is
 * no secret either; a real app gets its token from its sign-in (refine's authProvider).
 */
const DEMO_EDITOR_TOKEN =
  'eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoiZWRpdG9yIiwic3ViIjoiZGVtby1lZGl0b3IiLCJpYXQiOjE3NjcyMjU2MDB9.HGGcQu6ZR245fu1Ogv_J5XG4Sig8cBZ9YyytYMFzUeE';

const dataProvider = refineDataProvider({
  apiUrl: '/api',
  headers: { authorization: `Bearer ${DEMO_EDITOR_TOKEN}` },
});

interface User extends BaseRecord {
  id: number;
  name: string;
  email: string;
  status: string;
  score: number;
}

const sortable = ['name', 'score', 'created_at'];

function UserList() {
  const [search, setSearch] = useState('');
  const [minScore, setMinScore] = useState('');
  const { result, tableQuery, sorters, setSorters, setFilters, currentPage, setCurrentPage, pageCount } =
    useTable<User>({
      resource: 'users',
      pagination: { pageSize: 10 },
      sorters: { initial: [{ field: 'score', order: 'desc' }] },
      syncWithLocation: true,
    });
  const apply = (event: FormEvent) => {
    event.preventDefault();
    // `q` is the search; `gte` is one of the refine operators the provider maps (filter[score][gte]).
    const filters: CrudFilter[] = [
      { field: 'q', operator: 'contains', value: search || undefined },
      { field: 'score', operator: 'gte', value: minScore === '' ? undefined : Number(minScore) },
    ];
    setFilters(filters, 'replace');
    // New conditions, new list: start from its first page.
    setCurrentPage(1);
  };
  const sortBy = (field: string) => {
    const current = sorters[0];
    setSorters([{ field, order: current?.field === field && current.order === 'asc' ? 'desc' : 'asc' }]);
  };
  const arrow = (field: string) => {
    const current = sorters[0];
    return current?.field === field ? (current.order === 'asc' ? ' ▲' : ' ▼') : '';
  };
  return (
    <main>
      <h1>Users</h1>
      <form onSubmit={apply} aria-label="Filters">
        <label>
          Search <input value={search} onChange={(event) => setSearch(event.target.value)} />
        </label>{' '}
        <label>
          Score at least{' '}
          <input type="number" value={minScore} onChange={(event) => setMinScore(event.target.value)} />
        </label>{' '}
        <button type="submit">Apply</button>
      </form>
      <table aria-busy={tableQuery.isFetching}>
        <thead>
          <tr>
            <th>ID</th>
            {['name', 'email', 'status', 'score'].map((field) => (
              <th key={field}>
                {sortable.includes(field) ? (
                  <button type="button" onClick={() => sortBy(field)}>
                    {field}
                    {arrow(field)}
                  </button>
                ) : (
                  field
                )}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {result.data.map((user) => (
            <tr key={user.id} data-testid="row">
              <td>
                <Link to={`/users/edit/${user.id}`}>{user.id}</Link>
              </td>
              <td data-column="name">{user.name}</td>
              <td data-column="email">{user.email}</td>
              <td data-column="status">{user.status}</td>
              <td data-column="score">{user.score}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <nav aria-label="Pages">
        <button type="button" disabled={currentPage <= 1} onClick={() => setCurrentPage(currentPage - 1)}>
          Previous
        </button>{' '}
        <span data-testid="page-info">
          Page {currentPage} of {pageCount} · {result.total ?? '?'} users
        </span>{' '}
        <button
          type="button"
          disabled={currentPage >= pageCount}
          onClick={() => setCurrentPage(currentPage + 1)}
        >
          Next
        </button>
      </nav>
    </main>
  );
}

const fields = ['name', 'email', 'status', 'score'] as const;
type Values = Record<(typeof fields)[number], string>;

function UserEdit() {
  const { id } = useParams();
  const { query, onFinish, mutation, formLoading } = useForm<User, HttpError, Partial<User>>({
    resource: 'users',
    action: 'edit',
    id,
    redirect: false,
  });
  const record = query?.data?.data;
  const [values, setValues] = useState<Values>({ name: '', email: '', status: '', score: '' });
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (record)
      setValues({
        name: record.name,
        email: record.email,
        status: record.status,
        score: String(record.score),
      });
  }, [record]);
  // refine's HttpError: `errors` keyed by field, each a list of messages.
  const errors = mutation.error?.errors ?? {};
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    // Only what changed, as a PATCH means it.
    const changes: Partial<User> = {};
    if (values.name !== record?.name) changes.name = values.name;
    if (values.email !== record?.email) changes.email = values.email;
    if (values.status !== record?.status) changes.status = values.status;
    if (values.score !== String(record?.score)) changes.score = Number(values.score);
    try {
      await onFinish(changes);
      setSaved(true);
    } catch {
      // The error is in `mutation.error`, shown under the fields.
    }
  };
  return (
    <main>
      <h1>Edit user {record?.name}</h1>
      <p>
        <Link to="/users">Back to the list</Link>
      </p>
      <form onSubmit={submit} aria-label="Edit user" noValidate>
        {fields.map((field) => {
          const messages = errors[field];
          const text = Array.isArray(messages)
            ? messages.join(' ')
            : typeof messages === 'string'
              ? messages
              : '';
          return (
            <p key={field}>
              <label>
                {field}{' '}
                <input
                  name={field}
                  value={values[field]}
                  aria-invalid={text !== ''}
                  onChange={(event) => setValues({ ...values, [field]: event.target.value })}
                />
              </label>
              {text && (
                <span role="alert" data-field={field}>
                  {' '}
                  {text}
                </span>
              )}
            </p>
          );
        })}
        <button type="submit" disabled={formLoading}>
          Save
        </button>{' '}
        {saved && <output>Saved.</output>}
      </form>
    </main>
  );
}

const root = document.getElementById('root');
if (root)
  createRoot(root).render(
    <StrictMode>
      <HashRouter>
        <Refine
          dataProvider={dataProvider}
          routerProvider={routerProvider}
          resources={[{ name: 'users', list: '/users', edit: '/users/edit/:id' }]}
          options={{ disableTelemetry: true }}
        >
          <Routes>
            <Route index element={<Navigate to="/users" replace />} />
            <Route path="/users" element={<UserList />} />
            <Route path="/users/edit/:id" element={<UserEdit />} />
          </Routes>
        </Refine>
      </HashRouter>
    </StrictMode>,
  );
