// The `edrive` connector: OneDrive for Business through tenant-wide admin consent and app-only Graph access.
import { onedriveUnits } from './units.ts';
import { validateEdriveFilters } from '../../domain/filters/edrive.ts';
import type { BudgetConfig } from '../../provider/budget.ts';
import { localBudget } from '../../provider/budget-registry.ts';
import { ProviderHttp } from '../../provider/provider-http.ts';
import { defaultRetryConfig, type RetryConfig } from '../../provider/retry.ts';
import type { Connector } from '../types.ts';
import { checkUserIds } from './check-ids.ts';
import { createCollect } from './collect.ts';
import { retryDrivePieces } from './items.ts';
import { foldersDiscovery, usersDiscovery } from './discovery.ts';
import { MicrosoftIdentity } from './identity.ts';
import { oneDriveOAuth } from './oauth.ts';
import { graphQuirks } from './quirks.ts';
import { MicrosoftSignIn } from './sign-in.ts';
import { driveSubscriptions } from './subscriptions.ts';
import { eventMode, subscriptionsUsable, type ChangeNotifications } from './event-mode.ts';
import { isObject } from '../../domain/filters/selection.ts';

/** Microsoft deprioritizes undecorated traffic; this is the form its throttling guidance asks for. */
export const ONEDRIVE_USER_AGENT = 'ISV|Custody|Custody/0.1.0';

/**
 * In SharePoint resource units per tenant (this app's credential): 1,200 per minute is the smallest tenant
 * tier (reference §3), so 20 per second. Raise for larger tenants.
 */
export const DEFAULT_ONEDRIVE_BUDGET: BudgetConfig = { ratePerSecond: 20, concurrency: 4 };

export interface OneDriveConnectorOptions {
  clientId: string;
  clientSecret: string;
  /** e.g. https://login.microsoftonline.com (national clouds and the sandbox differ) */
  loginUrl: string;
  /** e.g. https://graph.microsoft.com/v1.0 */
  graphUrl: string;
  budget?: Partial<BudgetConfig>;
  retry?: Partial<RetryConfig>;
  /** MS_CHANGE_NOTIFICATIONS: `off` never subscribes (polling only); default `auto`. */
  changeNotifications?: ChangeNotifications;
}

export function createOneDriveConnector(opts: OneDriveConnectorOptions): Connector {
  const loginUrl = opts.loginUrl.replace(/\/+$/, '');
  const graphUrl = opts.graphUrl.replace(/\/+$/, '');
  const retry: RetryConfig = { ...defaultRetryConfig, ...opts.retry };
  // Login-host requests have their own small budget: they are not SharePoint traffic.
  const loginHttp = new ProviderHttp({
    budget: localBudget({ ratePerSecond: 5, concurrency: 4 }),
    retry: {
      ...retry,
      maxAttempts: Math.min(retry.maxAttempts, 4),
      giveUpAfterMs: Math.min(retry.giveUpAfterMs, 60_000),
    },
    userAgent: ONEDRIVE_USER_AGENT,
    quirks: graphQuirks,
  });
  const app = { clientId: opts.clientId, clientSecret: opts.clientSecret, loginUrl, http: loginHttp };
  const identity = new MicrosoftIdentity(app);
  const setting = opts.changeNotifications ?? 'auto';
  const budget = { ...DEFAULT_ONEDRIVE_BUDGET, ...opts.budget };
  const signIn = new MicrosoftSignIn(app);

  return {
    type: 'edrive',
    configType: 'edrive',
    kinds: ['file', 'folder'],
    userAgent: ONEDRIVE_USER_AGENT,
    limits: { budget, retry },
    quirks: graphQuirks,
    oauth: oneDriveOAuth(identity, signIn),
    validateFilters: validateEdriveFilters,
    checkFilterIds: checkUserIds(graphUrl),
    discovery: { users: usersDiscovery(graphUrl), folders: foldersDiscovery(graphUrl) },
    collect: createCollect(graphUrl),
    units: onedriveUnits,
    subscriptions: { ...driveSubscriptions(graphUrl), usable: (grantInfo) => subscriptionsUsable(grantInfo, setting) },
    eventMode: (grantInfo, filters) => {
      const { reason: _reason, ...mode } = eventMode(
        grantInfo,
        setting,
        isObject(filters) ? Object.keys(filters).length : 0,
        budget.ratePerSecond,
      );
      return mode;
    },
    retryPieces: retryDrivePieces(graphUrl),
  };
}
