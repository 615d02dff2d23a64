import { Box, Button, Card, CardContent, TextField, Typography } from '@mui/material';
import { useState } from 'react';
import type { AuthProvider } from 'react-admin';
import { useLogin, useNotify } from 'react-admin';

const STORAGE_KEY = 'rqs.token';

/**
 * The token kept from an earlier visit. Storage can be unavailable (a sandboxed frame, some private
 * modes), and then the admin still works for the tab's lifetime.
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

/** A pasted `Bearer <token>` is taken as the token alone: the admin adds the scheme itself. */
export const normalizeToken = (text: string): string | undefined =>
  text.trim().replace(/^Bearer\s+/i, '') || undefined;

/** What every request carries: the bearer token, when one is set. */
export const authHeaders = (token: string | undefined): Record<string, string> =>
  token ? { authorization: `Bearer ${token}` } : {};

/** The `sub` of a JWT, shown as who is signed in (read, never trusted: the service checks the token). */
function subjectOf(token: string): string {
  try {
    const payload = JSON.parse(atob((token.split('.')[1] ?? '').replace(/-/g, '+').replace(/_/g, '/')));
    return typeof payload.sub === 'string' ? payload.sub : 'Signed in';
  } catch {
    return 'Signed in';
  }
}

/**
 * react-admin's auth over a bearer token. Anonymous use is allowed (the service decides what an
 * anonymous caller may see); a 401 from any request signs out and opens the sign-in page with the
 * service's message. `onChange` is told of every new token: the schema documents depend on who asks.
 */
export function tokenAuthProvider(onChange: (token: string | undefined) => void): AuthProvider {
  return {
    login: async ({ token }: { token: string }) => {
      storeToken(token);
      onChange(token);
    },
    logout: async () => {
      const had = storedToken();
      storeToken(undefined);
      if (had) onChange(undefined);
      return '/login';
    },
    checkAuth: async () => {},
    checkError: async (error: { status?: number; message?: string }) => {
      if (error?.status === 401) throw { message: error.message, logoutUser: true };
    },
    getIdentity: async () => {
      const token = storedToken();
      return token ? { id: subjectOf(token), fullName: subjectOf(token) } : { id: '', fullName: 'Anonymous' };
    },
    getPermissions: async () => undefined,
  };
}

/** The sign-in page: one field for the bearer token (what the service's auth takes). */
export function TokenLogin() {
  const login = useLogin();
  const notify = useNotify();
  const [draft, setDraft] = useState('');
  const token = normalizeToken(draft);
  return (
    <Box sx={{ minHeight: '100vh', display: 'grid', placeItems: 'center', bgcolor: 'background.default' }}>
      <Card sx={{ width: 420, maxWidth: '92vw' }}>
        <CardContent>
          <Typography variant="h6" component="h1" gutterBottom>
            Sign in
          </Typography>
          <Typography variant="body2" color="text.secondary" gutterBottom>
            Paste the access token your service issued. Without one you browse as an anonymous caller.
          </Typography>
          <Box
            component="form"
            onSubmit={(event) => {
              event.preventDefault();
              if (token)
                login({ token }, '/').catch((error: Error) => notify(error.message, { type: 'error' }));
            }}
          >
            <TextField
              label="Access token"
              type="password"
              autoComplete="off"
              fullWidth
              margin="normal"
              value={draft}
              onChange={(event) => setDraft(event.target.value)}
            />
            <Box sx={{ display: 'flex', gap: 1, justifyContent: 'flex-end' }}>
              <Button href="#/">Continue without</Button>
              <Button type="submit" variant="contained" disabled={!token}>
                Sign in
              </Button>
            </Box>
          </Box>
        </CardContent>
      </Card>
    </Box>
  );
}
