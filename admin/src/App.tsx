import { useEffect, useMemo, useState } from 'react';
import { fetchIndex, fetchSchema, type ResourceEntry, type SchemaDocument } from '../../src/client/index.js';
import { emptyListState, type ListState, ListView } from './ListView.js';
import { RecordView } from './RecordView.js';
import {
  clientOptions,
  type Session,
  SessionContext,
  storedToken,
  TokenControl,
  unauthorizedMessage,
} from './session.js';
import { ErrorBox, errorText, hrefFor, Loading } from './ui.js';

interface AdminConfig {
  apiPrefix?: string;
}

/** `#/<resource path>[/<id>[/edit]]`. */
interface Route {
  path?: string;
  id?: string;
  edit: boolean;
}

function parseHash(hash: string): Route {
  const [path, id, edit] = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  return { ...(path ? { path } : {}), ...(id ? { id } : {}), edit: edit === 'edit' };
}

export function App() {
  const [route, setRoute] = useState(() => parseHash(window.location.hash));
  const [apiPrefix, setApiPrefix] = useState<string>();
  // A new object on every sign-in, even with the same token: what depends on it loads again.
  const [auth, setAuth] = useState(() => ({ token: storedToken() }));
  const [tokenProblem, setTokenProblem] = useState<string>();
  const [index, setIndex] = useState<ResourceEntry[]>();
  const [indexError, setIndexError] = useState<string>();
  const [schemas, setSchemas] = useState<Record<string, SchemaDocument | { error: string }>>({});
  // The list state of each resource survives visits to its records.
  const [lists, setLists] = useState<Record<string, ListState>>({});

  const session = useMemo<Session>(
    () => ({
      options: clientOptions(auth.token),
      report: (error) => {
        const message = unauthorizedMessage(error);
        if (message) setTokenProblem(message);
      },
    }),
    [auth],
  );
  const { options, report } = session;

  const changeToken = (token: string | undefined) => {
    // The index and the schema documents depend on who asks (a read-only form has no inputs).
    setAuth({ token });
    setTokenProblem(undefined);
    setIndex(undefined);
    setIndexError(undefined);
    setSchemas({});
  };

  useEffect(() => {
    const onHash = () => setRoute(parseHash(window.location.hash));
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  useEffect(() => {
    // The service says where its API is (`/admin/config.json`); the Vite dev server has no such file.
    fetch('./config.json')
      .then((response): Promise<AdminConfig> | AdminConfig => (response.ok ? response.json() : {}))
      .catch((): AdminConfig => ({}))
      .then((config) => setApiPrefix(config.apiPrefix ?? '/api'));
  }, []);

  useEffect(() => {
    if (apiPrefix === undefined) return;
    // Aborted when the token changes, so an answer for the previous token never lands.
    const controller = new AbortController();
    fetchIndex({ prefix: apiPrefix, ...options, signal: controller.signal }).then(
      setIndex,
      (error: unknown) => {
        if (controller.signal.aborted) return;
        report(error);
        setIndexError(unauthorizedMessage(error) ?? errorText(error));
      },
    );
    return () => controller.abort();
  }, [apiPrefix, options, report]);

  const entry = index?.find((candidate) => candidate.path === route.path);
  const schema = entry ? schemas[entry.path] : undefined;

  useEffect(() => {
    if (!entry || schemas[entry.path]) return;
    const controller = new AbortController();
    fetchSchema(entry, { ...options, signal: controller.signal }).then(
      (document) => setSchemas((all) => ({ ...all, [entry.path]: document })),
      (error: unknown) => {
        if (controller.signal.aborted) return;
        report(error);
        const message = unauthorizedMessage(error) ?? errorText(error);
        setSchemas((all) => ({ ...all, [entry.path]: { error: message } }));
      },
    );
    return () => controller.abort();
  }, [entry, schemas, options, report]);

  useEffect(() => {
    document.title = entry ? `${entry.title} · Admin` : 'Admin';
  }, [entry]);

  let main: React.ReactNode;
  if (indexError) main = <ErrorBox message={`Could not load the resources: ${indexError}`} />;
  else if (!index) main = <Loading />;
  else if (!route.path) main = <p className="muted">Pick a resource.</p>;
  else if (!entry) main = <ErrorBox message={`There is no resource "${route.path}".`} />;
  else if (!schema) main = <Loading />;
  else if ('error' in schema) main = <ErrorBox message={`Could not load the schema: ${schema.error}`} />;
  else if (route.id !== undefined)
    main = (
      <RecordView
        key={`${entry.path}/${route.id}`}
        entry={entry}
        schema={schema}
        id={route.id}
        edit={route.edit}
      />
    );
  else
    main = (
      <ListView
        key={entry.path}
        entry={entry}
        schema={schema}
        state={lists[entry.path] ?? emptyListState(schema)}
        onState={(state) => setLists((all) => ({ ...all, [entry.path]: state }))}
      />
    );

  return (
    <SessionContext.Provider value={session}>
      <div className="app">
        <header className="topbar">
          <h1>Admin</h1>
          <nav aria-label="Resources" data-testid="resource-picker">
            {index?.map((candidate) => (
              <a
                key={candidate.path}
                href={hrefFor(candidate.path)}
                aria-current={candidate.path === route.path ? 'page' : undefined}
                className="nav-link"
              >
                {candidate.title}
              </a>
            ))}
          </nav>
          <TokenControl token={auth.token} onToken={changeToken} problem={tokenProblem} />
        </header>
        <main>{main}</main>
      </div>
    </SessionContext.Provider>
  );
}
