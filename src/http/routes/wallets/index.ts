import type { App } from '../../../app.ts';
import createWallet from './createWallet.ts';
import deleteWallet from './deleteWallet.ts';
import getWallet from './getWallet.ts';
import listWallets from './listWallets.ts';

export default function register(app: App) {
  createWallet(app);
  getWallet(app);
  deleteWallet(app);
  listWallets(app);
}
