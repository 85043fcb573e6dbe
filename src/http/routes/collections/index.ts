import type { App } from '../../../app.ts';
import createCollection from './createCollection.ts';
import deleteCollection from './deleteCollection.ts';
import getCollection from './getCollection.ts';
import listCollections from './listCollections.ts';
import patchCollection from './patchCollection.ts';
import startCollection from './startCollection.ts';
import streamEvents from './streamEvents.ts';

export default function register(app: App) {
  createCollection(app);
  deleteCollection(app);
  getCollection(app);
  patchCollection(app);
  startCollection(app);
  listCollections(app);
  streamEvents(app);
}
