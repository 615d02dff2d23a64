import { useEffect, useMemo, useRef, useState } from 'react';
import { fetchIndex, fetchSchema, type ResourceEntry, type SchemaDocument } from '../../src/client/index.js';
import { CreateView } from './CreateView.js';
import { DashboardView } from './Dashboard.js';
import { ListView } from './ListView.js';
import { takeNotice, useGuardedHash } from './navigation.js';
import { RecordView } from './RecordView.js';
import { hrefFor, listHref, parseHash } from './routes.js';
import {
  clientOptions,
  type Session,
  SessionContext,
  storedToken,
  TokenControl,
  unauthorizedMessage,
} from './session.js';
import { ErrorBox, errorText, Loading } from './ui.js';

interface AdminConfig {
  apiPrefix?: string;
}

export function App() {
  const { location, dialog } = useGuardedHash();
  const route = useMemo(() => parseHash(location.hash), [location]);
  const [notice, setNotice] = useState<string>();
  const [apiPrefix, setApiPrefix] = useState<string>();
  // A new object on every sign-in, even with the same token: what depends on it loads again.
  const [auth, setAuth] = useState(() => ({ token: storedToken() }));
  const [tokenProblem, setTokenProblem] = useState<string>();
  const [index, setIndex] = useState<ResourceEntry[]>();
  const [indexError, setIndexError] = useState<string>();
  const [schemas, setSchemas] = useState<Record<string, SchemaDocument | { error: string }>>({});
  // The list a record was opened from, by resource: its page's back link returns to those filters.
  const lists = useRef(new Map<string, string>());
  if (route.path && route.view === 'list') lists.current.set(route.path, route.search);

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

  useEffect(() => setNotice(takeNotice(location.hash)), [location]);

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

  // Record pages name their record themselves.
  useEffect(() => {
    if (route.view === 'list' || !entry) document.title = entry ? `${entry.title} · Admin` : 'Admin';
  }, [entry, route.view]);

  let main: React.ReactNode;
  if (indexError) main = <ErrorBox message={`Could not load the resources: ${indexError}`} />;
  else if (!index) main = <Loading />;
  else if (!route.path) main = <p className="muted">Pick a resource.</p>;
  else if (!entry) main = <ErrorBox message={`There is no resource "${route.path}".`} />;
  else if (!schema) main = <Loading />;
  else if ('error' in schema) main = <ErrorBox message={`Could not load the schema: ${schema.error}`} />;
  else {
    const backHref = listHref(entry.path, lists.current.get(entry.path));
    if (route.view === 'new')
      main = <CreateView key={entry.path} entry={entry} schema={schema} backHref={backHref} />;
    else if (route.view === 'dashboard')
      main = <DashboardView key={entry.path} entry={entry} schema={schema} backHref={backHref} />;
    else if (route.id !== undefined)
      main = (
        <RecordView
          key={`${entry.path}/${route.id}`}
          entry={entry}
          schema={schema}
          index={index}
          id={route.id}
          edit={route.view === 'edit'}
          backHref={backHref}
        />
      );
    else
      main = <ListView key={entry.path} entry={entry} schema={schema} index={index} search={route.search} />;
  }

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
        <main>
          {notice && (
            <p className="success" role="status" data-testid="notice">
              {notice}
            </p>
          )}
          {main}
        </main>
        {dialog}
      </div>
    </SessionContext.Provider>
  );
}
