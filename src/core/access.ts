import { RequestError } from '../errors/request-error.js';
import type { AccessRule, Action, EndpointPolicy } from '../resource/policy.js';

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

/** An action's rule, or where none is set, whether the action is open by default. */
function ruleOf(policy: EndpointPolicy, action: Action): AccessRule | boolean {
  return policy.access?.[action] ?? openByDefault[action];
}

/** Whether the context may do `action` on the endpoint (schema documents and the index list actions). */
export async function mayDo(policy: EndpointPolicy, action: Action, ctx: unknown): Promise<boolean> {
  const rule = ruleOf(policy, action);
  return typeof rule === 'boolean' ? rule : (await rule(ctx)) === true;
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

/** Whether a context may do an action: undefined at once where no rule is set, or the rule's promise. */
export type AccessCheck = (ctx: unknown) => Promise<void> | undefined;

const open: AccessCheck = () => undefined;

/**
 * The access checks of an endpoint's actions, made once: each throws the denial unless the context may
 * do its action — at once where no rule is set (then nothing is returned, and a read need not wait for
 * a promise), or through the rule's answer. Made per action rather than looked up by the action's name
 * per request: one lookup site fed every action's name turns megamorphic once lists and reads both
 * pass through it, which cost a cheap read a few per cent (docs/benchmarks.md).
 */
export function accessChecks(
  policy: EndpointPolicy,
  resource: string,
  identified: (ctx: unknown) => boolean,
): Readonly<Record<Action, AccessCheck>> {
  const check = (action: Action): AccessCheck => {
    const rule = ruleOf(policy, action);
    if (typeof rule === 'boolean')
      return rule
        ? open
        : (ctx) => {
            throw denial(action, resource, identified(ctx));
          };
    return (ctx) =>
      Promise.resolve(rule(ctx)).then((allowed) => {
        if (allowed !== true) throw denial(action, resource, identified(ctx));
      });
  };
  return {
    list: check('list'),
    read: check('read'),
    create: check('create'),
    update: check('update'),
    delete: check('delete'),
    restore: check('restore'),
  };
}
