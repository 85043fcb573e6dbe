import { driveNotifications, notificationDedupKey } from '../connectors/onedrive/notifications.ts';
import { safeEqual } from '../domain/seal.ts';
import { GraphSubscriptionRepo } from '../store/graph-subscriptions.ts';
import { ProviderEventRepo } from '../store/provider-events.ts';
import type { ServiceDeps } from './deps.ts';

/** What the providers push to Custody, stored in the event inbox (a repeated delivery once) for the workers. */
export function createProviderInbox(deps: ServiceDeps) {
  const inbox = new ProviderEventRepo(deps.db);
  const subscriptions = new GraphSubscriptionRepo(deps.db);
  return {
    /** An authentic Zoom event Custody needs; false when it was stored before. */
    recordZoomEvent(facts: { dedupKey: string; event: string; accountId: string }, body: unknown): Promise<boolean> {
      return inbox.record({
        provider: 'zoom',
        dedupKey: facts.dedupKey,
        eventType: facts.event,
        routeKey: facts.accountId,
        body,
        at: new Date().toISOString(),
      });
    },

    /**
     * A batch of Graph notifications: each whose `subscriptionId` is one of Custody's subscriptions and whose
     * `clientState` matches is stored; the others are ignored (counted).
     */
    async acceptGraphNotifications(body: unknown): Promise<{ accepted: number; ignored: number }> {
      const now = new Date();
      let accepted = 0;
      let ignored = 0;
      // Anyone may post here: one lookup per request, however many notifications it carries.
      const notifications = driveNotifications(body);
      const known = await subscriptions.bySubscriptionIds(notifications.map((n) => n.subscriptionId));
      for (const n of notifications) {
        const row = known.get(n.subscriptionId);
        const expected = row ? deps.sealer.open<string>(row.sealed_client_state) : undefined;
        if (!row || expected === undefined || n.clientState === null || !safeEqual(expected, n.clientState)) {
          ignored += 1;
          continue;
        }
        if (n.lifecycleEvent === 'reauthorizationRequired') {
          // Renewing counts as reauthorizing (reference §2.6): the subscription manager renews what is due.
          await subscriptions.update(row.id, { expires_at: now.toISOString() }, now.toISOString());
          accepted += 1;
          continue;
        }
        if (n.lifecycleEvent !== null) {
          ignored += 1;
          continue;
        }
        await inbox.record({
          provider: 'microsoft',
          dedupKey: notificationDedupKey(n, now.getTime()),
          eventType: 'drive.updated',
          routeKey: n.subscriptionId,
          body: n.raw,
          at: now.toISOString(),
        });
        accepted += 1;
      }
      return { accepted, ignored };
    },
  };
}
