// Graph subscriptions on a user's drive root (reference provider-events.md §2.1–§2.4). Only the root can be
// subscribed on OneDrive for Business, only with changeType "updated"; Graph validates the notificationUrl
// before it answers 201, and silently deletes a subscription that was not renewed in time (PATCH → 404).
import { ProviderError } from '../../provider/provider-error.ts';
import type { ChangeSubscriptions, ProviderContext } from '../types.ts';

interface GraphSubscription {
  id?: string;
  expirationDateTime?: string;
}

export function driveSubscriptions(graphUrl: string): ChangeSubscriptions {
  const expiryOf = (body: GraphSubscription | undefined, asked: string) =>
    typeof body?.expirationDateTime === 'string' && !Number.isNaN(Date.parse(body.expirationDateTime))
      ? new Date(body.expirationDateTime).toISOString()
      : asked;
  return {
    async create(ctx: ProviderContext, input) {
      const body = await ctx.http.json<GraphSubscription>(`${graphUrl}/subscriptions`, {
        method: 'POST',
        body: {
          changeType: 'updated',
          notificationUrl: input.notificationUrl,
          // Same URL for lifecycle notifications: drives only ever get reauthorizationRequired (§2.6).
          lifecycleNotificationUrl: input.notificationUrl,
          resource: `/users/${encodeURIComponent(input.userId)}/drive/root`,
          expirationDateTime: input.expiresAt,
          clientState: input.clientState,
        },
      });
      if (typeof body?.id !== 'string' || body.id.length === 0)
        throw new Error('Graph answered a subscription without an id');
      return { id: body.id, expiresAt: expiryOf(body, input.expiresAt) };
    },
    async renew(ctx: ProviderContext, id, expiresAt) {
      try {
        const body = await ctx.http.json<GraphSubscription>(`${graphUrl}/subscriptions/${encodeURIComponent(id)}`, {
          method: 'PATCH',
          body: { expirationDateTime: expiresAt },
        });
        return { expiresAt: expiryOf(body, expiresAt) };
      } catch (err) {
        if (err instanceof ProviderError && err.status === 404) return 'gone';
        throw err;
      }
    },
    async remove(ctx: ProviderContext, id) {
      try {
        await ctx.http.json(`${graphUrl}/subscriptions/${encodeURIComponent(id)}`, { method: 'DELETE' });
      } catch (err) {
        if (!(err instanceof ProviderError && err.status === 404)) throw err;
      }
    },
  };
}
