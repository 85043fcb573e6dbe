import type { App } from '../../../app.ts';
import cancelExport from './cancelExport.ts';
import createExport from './createExport.ts';
import downloadExport from './downloadExport.ts';
import getExport from './getExport.ts';
import listExports from './listExports.ts';

export default function register(app: App) {
  createExport(app);
  listExports(app);
  getExport(app);
  downloadExport(app);
  cancelExport(app);
}
