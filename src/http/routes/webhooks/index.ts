import type { App } from '../../../app.ts';
import receiveMicrosoftNotification from './receiveMicrosoftNotification.ts';
import receiveZoomWebhook from './receiveZoomWebhook.ts';

export default function register(app: App) {
  receiveZoomWebhook(app);
  receiveMicrosoftNotification(app);
}
