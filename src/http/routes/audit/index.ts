import type { App } from '../../../app.ts';
import getAuditVerification from './getAuditVerification.ts';
import listAudit from './listAudit.ts';

export default function register(app: App) {
  listAudit(app);
  getAuditVerification(app);
}
