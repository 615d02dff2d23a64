import { RequestError } from '../errors/request-error.js';
import type { Action, EndpointPolicy } from '../resource/policy.js';

/** Reading is open unless a rule closes it; writing is closed unless a rule opens it. */
const openByDefault: Record<Action, boolean> = {
  list: true,
  read: true,
  create: false,
  update: false,
  delete: false,
  restore: false,
};

const verbs: Record<Action, string> = {
  list: 'list',
  read: 'read',
  create: 'create',
  update: 'update',
  delete: 'delete',
  restore: 'restore',
};

/** Whether the context may do `action` on the endpoint. */
export async function mayDo(policy: EndpointPolicy, action: Action, ctx: unknown): Promise<boolean> {
  const rule = policy.access?.[action];
  return rule ? (await rule(ctx)) === true : openByDefault[action];
}

/**
 * The answer to a denied action: 401 when the context has no identity (sign in, then retry), 403
 * when it has one that may not (retrying will not help).
 */
export function denial(action: Action, resource: string, identified: boolean): RequestError {
  if (!identified) {
    const message = `Authentication is required to ${verbs[action]} ${resource}.`;
    return new RequestError(
      401,
      { message, errors: { authorization: [message] } },
      { 'www-authenticate': 'Bearer' },
    );
  }
  return RequestError.single(403, 'access', `You may not ${verbs[action]} ${resource}.`);
}

/**
 * Throws the denial unless the context may do `action`: at once where no rule is set (then nothing
 * is returned, and a read need not wait for a promise), or through the rule's answer.
 */
export function requireAccess(
  policy: EndpointPolicy,
  action: Action,
  resource: string,
  ctx: unknown,
  identified: (ctx: unknown) => boolean,
): Promise<void> | undefined {
  const rule = policy.access?.[action];
  if (!rule) {
    if (openByDefault[action]) return undefined;
    throw denial(action, resource, identified(ctx));
  }
  return Promise.resolve(rule(ctx)).then((allowed) => {
    if (allowed !== true) throw denial(action, resource, identified(ctx));
  });
}
