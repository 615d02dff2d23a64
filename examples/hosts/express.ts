import { once } from 'node:events';
import express from 'express';
import { createExpressMiddleware } from '../../src/hosts/express.js';
import { runWhenMain, type Started, type StartOptions, started } from './run.js';
import { type AppUser, tenancyConfig, userForApiKey } from './tenancy.js';

// The user the authentication middleware sets on every request.
declare global {
  namespace Express {
    interface Request {
      user?: AppUser;
    }
  }
}

/** An Express application with its own auth and routes, and the service's middleware under /api. */
export async function start({ connection, port = 0, host = '127.0.0.1' }: StartOptions): Promise<Started> {
  const app = express();

  // Authentication: no key is anonymous, an unknown key is refused here, a known key is a user.
  app.use((req, res, next) => {
    const key = req.get('x-api-key');
    if (key === undefined) return next();
    req.user = userForApiKey(key);
    if (!req.user) {
      res.status(401).json({ message: 'Unknown API key.', errors: {} });
      return;
    }
    next();
  });

  // A route of the application's own.
  app.get('/me', (req, res) => {
    res.json({ user: req.user ?? null });
  });

  // The service answers its own routes (/api/…) and passes every other request on.
  app.use(await createExpressMiddleware({ config: tenancyConfig, connection, context: (req) => req.user }));

  const server = app.listen(port, host);
  await once(server, 'listening');
  return started(server, host);
}

await runWhenMain(import.meta.url, start);
