import { Alert, Box, Button, CircularProgress } from '@mui/material';
import polyglotI18nProvider from 'ra-i18n-polyglot';
import englishMessages from 'ra-language-english';
import { useEffect, useMemo, useState } from 'react';
import { Admin, Resource } from 'react-admin';
import { Route } from 'react-router';
import { ApiError, fetchIndex, fetchSchema, type SchemaDocument } from '../../src/client/index.js';
import { reactAdminDataProvider, type ServiceDataProvider } from '../../src/providers/react-admin.js';
import { type Catalog, canCreate, canEdit, keyOf, representation, singular } from './catalog.js';
import { DashboardPage } from './Dashboard.js';
import { dottedFilter } from './filters.js';
import { ListPage } from './lists.js';
import { livePaths, withOwnWrites } from './live.js';
import { CreatePage, EditPage, ShowPage } from './records.js';
import { authHeaders, storedToken, TokenLogin, tokenAuthProvider } from './session.js';

interface AdminConfig {
  apiPrefix?: string;
}

/** Where the API is: the service says it (`/admin/config.json`); the Vite dev server has no such file. */
async function apiPrefix(): Promise<string> {
  try {
    const response = await fetch('./config.json');
    const config = (response.ok ? await response.json() : {}) as AdminConfig;
    return config.apiPrefix ?? '/api';
  } catch {
    return '/api';
  }
}

/** The service's OpenAPI document, or undefined where it serves none (`openapi: false`). */
async function openapiOf(prefix: string, options: { headers: Record<string, string>; signal: AbortSignal }) {
  try {
    const response = await fetch(`${prefix}/openapi.json`, options);
    return response.ok ? ((await response.json()) as unknown) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The index and every schema document the token may read (one that fails is left out, with its
 * reason), and which of them are live (from the OpenAPI document, read meanwhile).
 */
async function loadCatalog(
  prefix: string,
  token: string | undefined,
  signal: AbortSignal,
): Promise<Catalog & { problems: string[] }> {
  const options = { headers: authHeaders(token), signal };
  const openapi = openapiOf(prefix, options);
  const entries = await fetchIndex({ prefix, ...options });
  const problems: string[] = [];
  const documents = await Promise.all(
    entries.map((entry) =>
      fetchSchema(entry, options).then(
        (document): [string, SchemaDocument] => [entry.path, document],
        (error: unknown) => {
          problems.push(`${entry.title}: ${error instanceof Error ? error.message : String(error)}`);
          return undefined;
        },
      ),
    ),
  );
  return {
    entries,
    schemas: new Map(documents.filter((document) => document !== undefined)),
    live: livePaths(
      await openapi,
      prefix.replace(/\/$/, ''),
      entries.map((entry) => entry.path),
    ),
    problems,
  };
}

/** react-admin's English, with each resource named as its schema document titles it ("User", "Users"). */
function i18nFor(catalog: Catalog) {
  const resources = Object.fromEntries(
    [...catalog.schemas].map(([path, schema]) => [
      path,
      { name: `${singular(schema.table.title)} |||| ${schema.table.title}` },
    ]),
  );
  return polyglotI18nProvider(() => ({ ...englishMessages, resources }), 'en', { allowMissing: true });
}

/** The data provider with the filter inputs' names (`department/name`) read as the service's (`department.name`). */
function withDottedFilters(provider: ServiceDataProvider): ServiceDataProvider {
  return {
    ...provider,
    getList: (resource, params) =>
      provider.getList(resource, { ...params, filter: dottedFilter(params.filter) }),
    exportList: (resource, params, format) =>
      provider.exportList(resource, { ...params, filter: dottedFilter(params.filter) }, format),
    getAggregate: (resource, params) =>
      provider.getAggregate(resource, { ...params, filter: dottedFilter(params.filter) }),
  };
}

type Loaded =
  | { prefix: string; catalog: Catalog & { problems: string[] } }
  | { error: string; status?: number };

/**
 * The admin: react-admin over the service's data provider, with one resource per endpoint the schema
 * index lists, each drawn from its schema document. A new token loads the documents again (what a
 * caller may see and do is theirs to say) and starts a new admin.
 */
export function App() {
  const [token, setToken] = useState(storedToken);
  const [loaded, setLoaded] = useState<Loaded>();

  useEffect(() => {
    const controller = new AbortController();
    setLoaded(undefined);
    apiPrefix()
      .then((prefix) =>
        loadCatalog(prefix, token, controller.signal).then((catalog) => ({ prefix, catalog })),
      )
      .then(setLoaded, (error: unknown) => {
        if (controller.signal.aborted) return;
        setLoaded({
          error: error instanceof Error ? error.message : String(error),
          ...(error instanceof ApiError ? { status: error.status } : {}),
        });
      });
    return () => controller.abort();
  }, [token]);

  const authProvider = useMemo(() => tokenAuthProvider(setToken), []);
  const dataProvider = useMemo(() => {
    if (!loaded || 'error' in loaded) return undefined;
    const { catalog, prefix } = loaded;
    return withOwnWrites(
      withDottedFilters(
        reactAdminDataProvider({
          apiUrl: prefix,
          headers: () => authHeaders(storedToken()),
          simplePagination: [...catalog.schemas]
            .filter(([, schema]) => schema.table.total === 'none')
            .map(([path]) => path),
        }),
      ),
    );
  }, [loaded]);

  const i18nProvider = useMemo(
    () => (loaded && !('error' in loaded) ? i18nFor(loaded.catalog) : undefined),
    [loaded],
  );

  if (!loaded)
    return (
      <Box sx={{ display: 'grid', placeItems: 'center', height: '100vh' }}>
        <CircularProgress aria-label="Loading" />
      </Box>
    );
  if ('error' in loaded || !dataProvider)
    return (
      <Box sx={{ p: 3, maxWidth: 640, mx: 'auto' }}>
        <Alert
          severity="error"
          action={
            // A refused token (401) is dropped here: the admin starts again anonymously.
            token && 'status' in loaded && loaded.status === 401 ? (
              <Button color="inherit" onClick={() => authProvider.logout({}).then(() => setToken(undefined))}>
                Sign out
              </Button>
            ) : undefined
          }
        >
          Could not load the resources: {'error' in loaded ? loaded.error : ''}
        </Alert>
      </Box>
    );
  const { catalog } = loaded;
  return (
    <Admin
      key={token ?? ''}
      title="Admin"
      dataProvider={dataProvider}
      i18nProvider={i18nProvider}
      authProvider={authProvider}
      loginPage={TokenLogin}
      disableTelemetry
      requireAuth={false}
    >
      {catalog.entries
        .filter((entry) => catalog.schemas.has(entry.path))
        .map((entry) => {
          const schema = catalog.schemas.get(entry.path) as SchemaDocument;
          const readable = schema.table.actions.includes('read');
          return (
            <Resource
              key={entry.path}
              name={entry.path}
              recordRepresentation={representation(schema, keyOf(catalog, entry.path))}
              list={<ListPage catalog={catalog} path={entry.path} />}
              {...(readable ? { show: <ShowPage catalog={catalog} path={entry.path} /> } : {})}
              {...(readable && canEdit(schema)
                ? { edit: <EditPage catalog={catalog} path={entry.path} /> }
                : {})}
              {...(canCreate(schema) ? { create: <CreatePage catalog={catalog} path={entry.path} /> } : {})}
            >
              <Route path="dashboard" element={<DashboardPage path={entry.path} schema={schema} />} />
            </Resource>
          );
        })}
    </Admin>
  );
}
