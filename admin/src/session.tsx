import { createContext, useContext, useState } from 'react';
import { ApiError, type ClientOptions } from '../../src/client/index.js';
import { DiscardDialog, discardUnsaved, unsavedWork } from './navigation.js';

const STORAGE_KEY = 'rqs.token';

/**
 * The token kept from an earlier visit. Storage can be unavailable (a sandboxed frame, some private
 * modes), and then the UI still works for the tab's lifetime.
 */
export function storedToken(): string | undefined {
  try {
    return localStorage.getItem(STORAGE_KEY) || undefined;
  } catch {
    return undefined;
  }
}

function storeToken(token: string | undefined): void {
  try {
    if (token) localStorage.setItem(STORAGE_KEY, token);
    else localStorage.removeItem(STORAGE_KEY);
  } catch {
    // Not kept across reloads, but this tab still uses it.
  }
}

/** A pasted `Bearer <token>` is taken as the token alone: the UI adds the scheme itself. */
function normalize(text: string): string | undefined {
  return text.trim().replace(/^Bearer\s+/i, '') || undefined;
}

/** What every request of the UI carries: the bearer token, when one is set. */
export function clientOptions(token: string | undefined): ClientOptions {
  return token ? { headers: { authorization: `Bearer ${token}` } } : {};
}

/** The 401 envelope's own message (the token is missing, invalid or expired), else undefined. */
export function unauthorizedMessage(error: unknown): string | undefined {
  return error instanceof ApiError && error.status === 401 ? error.envelope.message : undefined;
}

export interface Session {
  options: ClientOptions;
  /** Called with a request's failure: a 401 shows its message next to the token control. */
  report: (error: unknown) => void;
}

export const SessionContext = createContext<Session>({ options: {}, report: () => {} });

/** The request options of the current token, for components below App. */
export function useSession(): Session {
  return useContext(SessionContext);
}

export function TokenControl({
  token,
  onToken,
  problem,
}: {
  token: string | undefined;
  onToken: (token: string | undefined) => void;
  /** The server's message for a refused token. */
  problem: string | undefined;
}) {
  const [draft, setDraft] = useState(token ?? '');
  // A token change reloads every view under the new identity: an open form's edits would be lost, so
  // the change waits for the user's answer (`{ next }` holds the token asked for; undefined signs out).
  const [pending, setPending] = useState<{ next: string | undefined; unsaved: string }>();

  const apply = (next: string | undefined) => {
    storeToken(next);
    setDraft(next ?? '');
    onToken(next);
  };
  const request = (next: string | undefined) => {
    const unsaved = unsavedWork();
    if (unsaved) setPending({ next, unsaved });
    else apply(next);
  };

  return (
    <div className="token">
      <form
        className="token-form"
        data-testid="token-form"
        onSubmit={(event) => {
          event.preventDefault();
          request(normalize(draft));
        }}
      >
        <label htmlFor="token-input">Access token</label>
        <input
          id="token-input"
          type="password"
          autoComplete="off"
          spellCheck={false}
          value={draft}
          // A 401 without a token (a rule that needs an identity) is no fault of the input.
          aria-invalid={problem && token ? true : undefined}
          aria-describedby={problem ? 'token-problem' : undefined}
          onChange={(event) => setDraft(event.target.value)}
        />
        <button type="submit" className="primary" disabled={!normalize(draft)}>
          Sign in
        </button>
        <button type="button" disabled={!token && !draft} onClick={() => request(undefined)}>
          Sign out
        </button>
        <span className="muted token-state" role="status" data-testid="token-state">
          {token ? 'Token set' : 'Anonymous'}
        </span>
      </form>
      {pending && (
        <DiscardDialog
          title={pending.next ? 'Change the access token?' : 'Sign out?'}
          testId="token-dialog"
          keep="Keep editing"
          discard={`${pending.next ? 'Change token' : 'Sign out'} (discard changes)`}
          onKeep={() => setPending(undefined)}
          onDiscard={() => {
            setPending(undefined);
            discardUnsaved();
            apply(pending.next);
          }}
        >
          <p>Every view reloads under the new identity: your changes to {pending.unsaved} are not saved.</p>
        </DiscardDialog>
      )}
      {problem && (
        <p className="field-error token-problem" id="token-problem" role="alert" data-testid="token-error">
          {problem}
        </p>
      )}
    </div>
  );
}
