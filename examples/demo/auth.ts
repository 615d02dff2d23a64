import type { JWTPayload } from 'jose';
import { bearerContext, bearerOptionsFrom } from '../../src/server/bearer.js';

/**
 * The demo's secret is published (README): anyone can sign tokens with it. A real deployment sets
 * AUTH_JWT_SECRET, AUTH_JWT_PUBLIC_KEY or AUTH_JWT_JWKS_URL, which replace it.
 */
export const DEMO_SECRET = 'demo-secret-published-in-the-readme-never-use-it';

/** Signed with DEMO_SECRET (HS256, no expiry): `Authorization: Bearer <token>`. */
export const demoTokens = {
  /** `{ sub: 'demo-editor', role: 'editor' }`: may list, read and update. */
  editor:
    'eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoiZWRpdG9yIiwic3ViIjoiZGVtby1lZGl0b3IiLCJpYXQiOjE3NjcyMjU2MDB9.HGGcQu6ZR245fu1Ogv_J5XG4Sig8cBZ9YyytYMFzUeE',
  /** `{ sub: 'demo-viewer', role: 'viewer' }`: may list and read, not update. */
  viewer:
    'eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoidmlld2VyIiwic3ViIjoiZGVtby12aWV3ZXIiLCJpYXQiOjE3NjcyMjU2MDB9.ebQzyYFiCtukUn8Hc0HPRDHBDwV33JZOlPDL7j6OxA0',
} as const;

/** Who is asking in the demo: a token's claims, or `undefined` without a token. */
export type DemoContext = (JWTPayload & { role?: string }) | undefined;

/** The demo's context hook: bearer tokens checked against the environment's key, else DEMO_SECRET. */
export const demoContext = bearerContext(bearerOptionsFrom(process.env) ?? { secret: DEMO_SECRET });

/** Only editors may update. */
export const editorsOnly = (ctx: DemoContext): boolean => ctx?.role === 'editor';
