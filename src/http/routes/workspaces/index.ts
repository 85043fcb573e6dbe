import type { App } from '../../../app.ts';
import createWorkspace from './createWorkspace.ts';
import deleteWorkspace from './deleteWorkspace.ts';
import getWorkspace from './getWorkspace.ts';
import listWorkspaceCollections from './listWorkspaceCollections.ts';
import listWorkspaces from './listWorkspaces.ts';

export default function register(app: App) {
  createWorkspace(app);
  deleteWorkspace(app);
  getWorkspace(app);
  listWorkspaceCollections(app);
  listWorkspaces(app);
}
