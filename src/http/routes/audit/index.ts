import type { App } from '../../../app.ts';
import listAudit from './listAudit.ts';

export default function register(app: App) {
  listAudit(app);
}
