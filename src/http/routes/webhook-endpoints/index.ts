import type { App } from '../../../app.ts';
import createWebhookEndpoint from './createWebhookEndpoint.ts';
import deleteWebhookEndpoint from './deleteWebhookEndpoint.ts';
import getWebhookEndpoint from './getWebhookEndpoint.ts';
import listWebhookDeliveries from './listWebhookDeliveries.ts';
import listWebhookEndpoints from './listWebhookEndpoints.ts';

export default function register(app: App) {
  createWebhookEndpoint(app);
  listWebhookEndpoints(app);
  getWebhookEndpoint(app);
  deleteWebhookEndpoint(app);
  listWebhookDeliveries(app);
}
